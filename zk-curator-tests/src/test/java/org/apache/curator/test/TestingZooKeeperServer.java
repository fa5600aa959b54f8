package org.apache.curator.test;

import dev.zkr.server.ServerConfig;
import dev.zkr.server.ZkServer;

import org.apache.curator.test.compatibility.Timing2;

import java.io.Closeable;
import java.io.IOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/**
 * zkr's stand-in for curator-test's {@code TestingZooKeeperServer}: the same public API, but {@link #start()} starts
 * a zkr server ({@link ZkServer}) from the instance's {@link InstanceSpec} instead of ZooKeeper's. On the zkr run's
 * test class path this class comes before curator-test's jar, so Curator's own tests (through {@link TestingServer}
 * and {@link TestingCluster}) run against zkr unchanged.
 *
 * <p>What a spec says, and how zkr gets it (as curator-test configures ZooKeeper):
 * <ul>
 *   <li>client port: the spec's port (0: any free port, {@link #getLocalPort()} tells which), bound on the spec's
 *       host (loopback: {@code localhost});</li>
 *   <li>data directory: the spec's, kept across {@link #stop()}/{@link #restart()}, deleted by {@link #close()} when
 *       the spec says so;</li>
 *   <li>tick time: the spec's, else curator-test's default ({@code new Timing2().tickTime()}, 1 s); the session
 *       timeout range ZooKeeper derives from it: one tick (curator-test sets {@code minSessionTimeout=tickTime}) to
 *       20 ticks;</li>
 *   <li>an ensemble (more than one spec): server id, host and quorum port of each member (zkr has one peer port per
 *       member, the spec's quorum port; its election port is not used); election timeout a quarter tick (at least
 *       200 ms), as zkr requires a minimum session timeout of 4 election timeouts (so at least 800 ms);</li>
 *   <li>{@code maxClientCnxns}: zkr's connections per client address (0, unlimited in ZooKeeper, is unlimited);</li>
 *   <li>the system property {@code znode.container.checkIntervalMs} (which Curator's container and TTL tests set;
 *       ZooKeeper's default, 60 s, otherwise): zkr's container check interval;</li>
 *   <li>every four-letter word answered (curator-test whitelists {@code *}).</li>
 * </ul>
 * A server that cannot bind its port fails with curator-test's {@link FailedServerStartException} (caused by the
 * {@link BindException}), which {@link BaseClassForTests} retries as it does for ZooKeeper.
 */
public class TestingZooKeeperServer implements Closeable {

    /** How long a (re)start waits for its port to be released by the server it replaces. */
    private static final Duration PORT_RELEASE_PATIENCE = Duration.ofSeconds(10);
    /** ZooKeeper's default {@code znode.container.checkIntervalMs}. */
    private static final long ZOOKEEPER_CONTAINER_CHECK_MS = 60_000;
    /** The shortest leader-election timeout zkr accepts. */
    private static final long MIN_ELECTION_TIMEOUT_MS = 200;

    private enum State { LATENT, STARTED, STOPPED, CLOSED }

    private final AtomicReference<State> state = new AtomicReference<>(State.LATENT);
    private final QuorumConfigBuilder configBuilder;
    private final int thisInstanceIndex;
    private volatile int thisInstancePort;
    private volatile ZkServer server;

    public TestingZooKeeperServer(QuorumConfigBuilder configBuilder) {
        this(configBuilder, 0);
    }

    public TestingZooKeeperServer(QuorumConfigBuilder configBuilder, int thisInstanceIndex) {
        this.configBuilder = configBuilder;
        this.thisInstanceIndex = thisInstanceIndex;
        this.thisInstancePort = configBuilder.getInstanceSpec(thisInstanceIndex).getPort();
    }

    public Collection<InstanceSpec> getInstanceSpecs() {
        return configBuilder.getInstanceSpecs();
    }

    public InstanceSpec getInstanceSpec() {
        return configBuilder.getInstanceSpec(thisInstanceIndex);
    }

    /** The zkr server running now, or null (for this module's own tests of the harness). */
    public ZkServer zkrServer() {
        return server;
    }

    /** Starts the server (once: a started, stopped or closed instance is left as it is, as curator-test's). */
    public void start() throws Exception {
        if (!state.compareAndSet(State.LATENT, State.STARTED)) {
            return;
        }
        ZkServer started = startOnPort(config(thisInstancePort));
        thisInstancePort = started.port();
        server = started;
    }

    /** Stops the server cleanly (its data directory stays; its sessions are in its data). */
    public void stop() throws IOException {
        if (state.compareAndSet(State.STARTED, State.STOPPED)) {
            ZkServer s = server;
            server = null;
            if (s != null) {
                s.close();
            }
        }
    }

    /** Stops the server abruptly, as a crash (zkr's {@link ZkServer#kill()}). */
    public void kill() {
        ZkServer s = server;
        server = null;
        if (s != null) {
            s.kill();
        }
        state.set(State.STOPPED);
    }

    /** Stops the server if it runs and starts it again on the same port and data; fails once closed. */
    public void restart() throws Exception {
        if (state.get() == State.CLOSED) {
            throw new IllegalStateException("Cannot restart a closed instance");
        }
        if (state.get() == State.STARTED) {
            stop();
        }
        state.set(State.LATENT);
        start();
    }

    /** Stops the server and deletes its data directory if its spec says so. */
    @Override
    public void close() throws IOException {
        stop();
        if (state.compareAndSet(State.STOPPED, State.CLOSED) || state.compareAndSet(State.LATENT, State.CLOSED)) {
            configBuilder.close();
            InstanceSpec spec = getInstanceSpec();
            if (spec.deleteDataDirectoryOnClose()) {
                DirectoryUtils.deleteRecursively(spec.getDataDirectory());
            }
        }
    }

    public int getLocalPort() {
        if (thisInstancePort == 0) {
            throw new IllegalStateException("server is configured to bind to port 0 but not started");
        }
        return thisInstancePort;
    }

    private ServerConfig config(int port) throws UnknownHostException {
        InstanceSpec spec = getInstanceSpec();
        int tickMs = spec.getTickTime() > 0 ? spec.getTickTime() : new Timing2().tickTime();
        List<InstanceSpec> specs = configBuilder.getInstanceSpecs();
        ServerConfig.Builder b = ServerConfig.builder(spec.getDataDirectory().toPath())
                .bindAddress(InetAddress.getByName(spec.getHostname()))
                .port(port)
                .tickTime(Duration.ofMillis(tickMs))
                .minSessionTimeout(Duration.ofMillis(specs.size() > 1 ? Math.max(tickMs, 4 * MIN_ELECTION_TIMEOUT_MS) : tickMs))
                .maxSessionTimeout(Duration.ofMillis(20L * tickMs))
                .fourLetterWords(dev.zkr.server.zookeeper.FirstFrame.knownWords());
        if (spec.getMaxClientCnxns() >= 0) {
            b.maxConnectionsPerHost(spec.getMaxClientCnxns() == 0 ? Integer.MAX_VALUE : spec.getMaxClientCnxns());
        }
        // ZooKeeper's container reaper runs every znode.container.checkIntervalMs, 60 s unless a test sets it lower;
        // zkr's would run every second, and deleting an emptied container that early makes a Curator test that
        // reads the container back after a restart see NoNode where ZooKeeper still has it
        b.containerCheckInterval(Duration.ofMillis(Math.max(1, Long.getLong("znode.container.checkIntervalMs",
                ZOOKEEPER_CONTAINER_CHECK_MS))));
        if (specs.size() > 1) {
            List<ServerConfig.Member> members = new ArrayList<>();
            for (InstanceSpec member : specs) {
                int clientPort = member == spec ? port : member.getPort();
                members.add(new ServerConfig.Member(member.getServerId(), member.getHostname(),
                        member.getQuorumPort(), clientPort));
            }
            // zkr requires minSessionTimeout >= 4 x electionTimeout (a failover must not expire sessions): a quarter
            // tick keeps ZooKeeper's one-tick minimum (heartbeats: zkr's default, a tenth of it)
            b.serverId(spec.getServerId())
                    .members(members)
                    .electionTimeout(Duration.ofMillis(Math.max(MIN_ELECTION_TIMEOUT_MS, tickMs / 4)));
        }
        return b.build();
    }

    /**
     * Starts a zkr server on its port; while the port is still held (by the server this one replaces, its sockets
     * closing) it tries again for up to {@link #PORT_RELEASE_PATIENCE}, then fails as curator-test's server does.
     */
    private static ZkServer startOnPort(ServerConfig config) {
        long deadline = System.nanoTime() + PORT_RELEASE_PATIENCE.toNanos();
        while (true) {
            try {
                return ZkServer.start(config);
            } catch (RuntimeException e) {
                if (!bindFailure(e)) {
                    throw new FailedServerStartException(e);
                }
                if (config.port() == 0 || System.nanoTime() > deadline) {
                    throw new FailedServerStartException(e);
                }
                LockSupport.parkNanos(Duration.ofMillis(50).toNanos()); // the OS releases the port: nothing to wait on
            }
        }
    }

    private static boolean bindFailure(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof BindException) {
                return true;
            }
        }
        return false;
    }
}
