package dev.zkr.apache;

import org.apache.zookeeper.server.ContainerManager;
import org.apache.zookeeper.server.RequestProcessor;
import org.apache.zookeeper.server.ServerCnxnFactory;
import org.apache.zookeeper.server.ZooKeeperServer;
import org.apache.zookeeper.server.persistence.FileTxnSnapLog;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * A real standalone Apache ZooKeeper server in this JVM, on a free loopback port, with its data in a temporary
 * directory (fsync on, as in production). It can be stopped and restarted on the same port with the same data
 * (clients see SUSPENDED, then RECONNECTED with their sessions intact), and can expire a session on demand.
 * Containers are cleaned up every {@code containerCheckIntervalMs} (100 ms by default, ZooKeeper's is a minute).
 *
 * <p>Needs {@code io.dropwizard.metrics:metrics-core} at run time (ZooKeeper's server metrics use it).
 */
public final class EmbeddedZooKeeper implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(EmbeddedZooKeeper.class);
    private static final int BIND_ATTEMPTS = 5;

    private final int tickTimeMs;
    private final int minSessionTimeoutMs;
    private final int maxSessionTimeoutMs;
    private final int containerCheckIntervalMs;
    private final Path dataDir;
    private int port;
    private Running running;

    /** The parts of one run of the server; a restart makes new ones over the same data. */
    private record Running(ZooKeeperServer server, ServerCnxnFactory factory, FileTxnSnapLog log,
                           ContainerManager containers) {
    }

    /** ZooKeeperServer keeps its first request processor protected; the container manager needs it. */
    private static final class Server extends ZooKeeperServer {
        Server(FileTxnSnapLog log, int tickTime, int minSessionTimeout, int maxSessionTimeout) {
            super(log, tickTime, minSessionTimeout, maxSessionTimeout, -1, null, "");
        }

        RequestProcessor firstRequestProcessor() {
            return firstProcessor;
        }
    }

    private EmbeddedZooKeeper(int tickTimeMs, int minSessionTimeoutMs, int maxSessionTimeoutMs,
                              int containerCheckIntervalMs) {
        this.tickTimeMs = tickTimeMs;
        this.minSessionTimeoutMs = minSessionTimeoutMs;
        this.maxSessionTimeoutMs = maxSessionTimeoutMs;
        this.containerCheckIntervalMs = containerCheckIntervalMs;
        try {
            this.dataDir = Files.createTempDirectory("zkr-apache-zk");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a data directory", e);
        }
    }

    /** ZooKeeper's switch for TTL nodes (its "extended types"). */
    private static final String EXTENDED_TYPES = "zookeeper.extendedTypesEnabled";

    /**
     * Starts a server with tick time 100 ms, session timeouts negotiated within 200 ms .. 60 s, and container
     * cleanup every 100 ms.
     */
    public static EmbeddedZooKeeper start() {
        return start(100, 200, 60_000, 100);
    }

    /**
     * Starts a server with the given tick time, session timeout bounds and container check interval (ms). TTL nodes
     * are on, as in zkr: this sets ZooKeeper's JVM-wide {@code zookeeper.extendedTypesEnabled} (it is read on every
     * create), unless it was set to something else before.
     */
    public static EmbeddedZooKeeper start(int tickTimeMs, int minSessionTimeoutMs, int maxSessionTimeoutMs,
                                          int containerCheckIntervalMs) {
        if (System.getProperty(EXTENDED_TYPES) == null) {
            System.setProperty(EXTENDED_TYPES, "true");
        }
        EmbeddedZooKeeper zk = new EmbeddedZooKeeper(tickTimeMs, minSessionTimeoutMs, maxSessionTimeoutMs,
                containerCheckIntervalMs);
        try {
            zk.startOnFreePort();
        } catch (RuntimeException e) {
            zk.close();
            throw e;
        }
        return zk;
    }

    private void startOnFreePort() {
        IOException last = null;
        for (int attempt = 0; attempt < BIND_ATTEMPTS; attempt++) {
            port = freePort();
            try {
                running = launch();
                return;
            } catch (BindException e) {
                last = e; // someone took the port between probe and bind: try another
            } catch (IOException e) {
                throw new UncheckedIOException("cannot start ZooKeeper", e);
            }
        }
        throw new UncheckedIOException("no free port for ZooKeeper after " + BIND_ATTEMPTS + " attempts", last);
    }

    private static int freePort() {
        try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return probe.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot find a free port", e);
        }
    }

    private Running launch() throws IOException {
        FileTxnSnapLog log = new FileTxnSnapLog(dataDir.toFile(), dataDir.toFile());
        Server server = new Server(log, tickTimeMs, minSessionTimeoutMs, maxSessionTimeoutMs);
        ServerCnxnFactory factory = ServerCnxnFactory.createFactory();
        try {
            factory.configure(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 0);
            factory.startup(server);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            factory.shutdown();
            log.close();
            throw new IOException("interrupted while starting ZooKeeper", e);
        } catch (IOException e) {
            factory.shutdown();
            log.close();
            throw e;
        }
        ContainerManager containers = new ContainerManager(server.getZKDatabase(), server.firstRequestProcessor(),
                containerCheckIntervalMs, 10_000, 0);
        containers.start();
        LOG.debug("ZooKeeper started on {} with data in {}", connectString(), dataDir);
        return new Running(server, factory, log, containers);
    }

    /**
     * Runs ZooKeeper's container and TTL cleanup once now (what its timer does every container check interval), for
     * tests that must show a node is <em>not</em> removed without waiting for timers; the deletes it asks for are
     * applied asynchronously (a client's {@code sync} after this sees them).
     */
    public synchronized void checkContainersNow() {
        Running r = running;
        if (r == null) {
            throw new IllegalStateException("ZooKeeper is not running");
        }
        try {
            r.containers().checkContainers();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    /** {@code 127.0.0.1:port}, valid across restarts. */
    public String connectString() {
        return InetAddress.getLoopbackAddress().getHostAddress() + ":" + port;
    }

    /** The client port, the same across restarts. */
    public int port() {
        return port;
    }

    /** True between start/restart and stop/close. */
    public synchronized boolean isRunning() {
        return running != null;
    }

    /** Stops the server and drops every connection; the data stays for {@link #restart()}. Idempotent. */
    public synchronized void stop() {
        Running r = running;
        if (r == null) {
            return;
        }
        running = null;
        r.containers().stop();
        r.factory().shutdown();
        r.server().shutdown();
        try {
            r.log().close();
        } catch (IOException e) {
            LOG.warn("Closing the ZooKeeper transaction log failed", e);
        }
        LOG.debug("ZooKeeper on port {} stopped", port);
    }

    /** Starts the server again on the same port with the same data; live sessions that reconnect in time survive. */
    public synchronized void restart() {
        if (running != null) {
            throw new IllegalStateException("ZooKeeper is running");
        }
        try {
            running = launch();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot restart ZooKeeper on port " + port, e);
        }
    }

    /**
     * Expires a session now, as its timeout would: the server deletes its ephemerals, fires their watches and closes
     * its connection; the client learns it is expired when it reconnects.
     */
    public synchronized void expireSession(long sessionId) {
        if (running == null) {
            throw new IllegalStateException("ZooKeeper is stopped");
        }
        running.server().expire(sessionId);
    }

    /** Stops the server and deletes its data. Idempotent. */
    @Override
    public synchronized void close() {
        stop();
        if (Files.exists(dataDir)) {
            try (Stream<Path> files = Files.walk(dataDir)) {
                files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            } catch (IOException e) {
                LOG.warn("Cannot delete ZooKeeper data in {}", dataDir, e);
            }
        }
    }
}
