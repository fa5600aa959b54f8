package dev.zkr.testkit;

import dev.zkr.client.ZkClient;
import dev.zkr.client.ZkClientBuilder;
import dev.zkr.server.ServerConfig;
import dev.zkr.server.ZkServer;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * zkr servers running in this JVM on loopback, for tests: start with {@code TestEnsemble.builder().start()}, connect
 * native clients with {@link #newClient()}, inject faults with {@link #kill(int)}, {@link #restart(int)} and
 * {@link #expireSession(long)}, and {@link #close()} everything (servers, clients, temp directories) at the end.
 * Servers are numbered from 0. Only single-server ensembles exist so far.
 *
 * <p>Each server gets a free port (bound as port 0, then kept, so {@link #connectString()} stays valid across
 * {@link #restart(int)}) and its own temporary data directory.
 */
public final class TestEnsemble implements AutoCloseable {

    private final Builder settings;
    private final Path baseDir;
    private final boolean deleteBaseDir;
    private final List<Slot> slots = new ArrayList<>();
    private final List<ZkClient> clients = new CopyOnWriteArrayList<>();
    private boolean closed;

    /** One server position: its config (with the port it got), and the running server or null. */
    private static final class Slot {
        ServerConfig config;
        ZkServer server;
    }

    private TestEnsemble(Builder b) {
        this.settings = b;
        try {
            this.deleteBaseDir = b.baseDir == null;
            this.baseDir = b.baseDir != null ? Files.createDirectories(b.baseDir)
                    : Files.createTempDirectory("zkr-testkit-");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the ensemble's data directory", e);
        }
        try {
            for (int i = 0; i < b.servers; i++) {
                Slot slot = new Slot();
                ServerConfig.Builder cb = ServerConfig.builder(baseDir.resolve("server-" + i))
                        .port(0)
                        .serverId(i + 1)
                        .tickTime(b.tickTime)
                        .minSessionTimeout(b.minSessionTimeout)
                        .maxSessionTimeout(b.maxSessionTimeout)
                        .maxDataSize(b.maxDataSize);
                if (b.configurer != null) {
                    b.configurer.accept(cb);
                }
                ServerConfig config = cb.build();
                slot.server = ZkServer.start(config);
                slot.config = config.withPort(slot.server.port());
                slots.add(slot);
            }
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    /** A builder: one server, tick 100 ms, session timeouts 200 ms .. 60 s, 1 MiB nodes. */
    public static Builder builder() {
        return new Builder();
    }

    /** {@code host:port,...} of every server (including stopped ones). */
    public String connectString() {
        return slots.stream().map(s -> s.config.bindAddress().getHostAddress() + ":" + s.config.port())
                .collect(Collectors.joining(","));
    }

    /** Number of servers. */
    public int size() {
        return slots.size();
    }

    /** The port of server {@code i} (stable across restarts). */
    public int port(int i) {
        return slot(i).config.port();
    }

    /** The running server {@code i}; fails if it is stopped. */
    public ZkServer server(int i) {
        ZkServer s = slot(i).server;
        if (s == null) {
            throw new IllegalStateException("server " + i + " is not running");
        }
        return s;
    }

    /** True if server {@code i} runs. */
    public synchronized boolean isRunning(int i) {
        return slot(i).server != null;
    }

    /** The data directory of server {@code i}. */
    public Path dataDir(int i) {
        return slot(i).config.dataDir();
    }

    /** A connected native client with the default session timeout (5 s); closed with the ensemble. */
    public ZkClient newClient() {
        return newClient(settings.clientSessionTimeout);
    }

    /** A connected native client with this session timeout; closed with the ensemble. */
    public ZkClient newClient(Duration sessionTimeout) {
        Objects.requireNonNull(sessionTimeout, "sessionTimeout");
        return newClient(b -> b.sessionTimeout(sessionTimeout));
    }

    /** A connected native client configured by {@code customizer} (connect string preset); closed with the ensemble. */
    public ZkClient newClient(Consumer<ZkClientBuilder> customizer) {
        checkOpen();
        ZkClientBuilder b = ZkClient.builder().connectString(connectString())
                .sessionTimeout(settings.clientSessionTimeout)
                .connectTimeout(Duration.ofSeconds(10));
        customizer.accept(b);
        ZkClient client = b.build();
        clients.add(client);
        return client;
    }

    /**
     * Stops server {@code i} abruptly: its pipeline stops at once, its connections drop without a session close,
     * its files are closed (as close to a crash as a server in this JVM gets). Its sessions stay in its data.
     */
    public synchronized void kill(int i) {
        Slot s = slot(i);
        if (s.server == null) {
            throw new IllegalStateException("server " + i + " is not running");
        }
        s.server.kill();
        s.server = null;
    }

    /** Stops server {@code i} cleanly (finishes the batch in flight). */
    public synchronized void stop(int i) {
        Slot s = slot(i);
        if (s.server == null) {
            throw new IllegalStateException("server " + i + " is not running");
        }
        s.server.close();
        s.server = null;
    }

    /**
     * Starts server {@code i} again on the same port and data directory (stopping it abruptly first if it runs).
     * Retries while the port is still held for a few seconds, then fails with a clear message.
     */
    public synchronized void restart(int i) {
        checkOpen();
        Slot s = slot(i);
        if (s.server != null) {
            s.server.kill();
            s.server = null;
        }
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (true) {
            try {
                s.server = ZkServer.start(s.config);
                return;
            } catch (IllegalStateException e) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("cannot restart server " + i + ": port " + s.config.port()
                            + " is still taken (" + e.getMessage() + ")", e);
                }
                try {
                    Thread.sleep(50); // waiting for the OS to release the port; nothing to poll
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted while restarting server " + i, ie);
                }
            }
        }
    }

    /**
     * Makes the server expire this session now through its normal expiry path (a CloseSession txn deletes its
     * ephemerals and fires their watches; its connection is closed, so the client sees the session LOST).
     *
     * @throws IllegalArgumentException if no running server knows the session
     */
    public void expireSession(long sessionId) {
        for (Slot s : snapshotSlots()) {
            ZkServer server = s.server;
            if (server != null && server.expireSession(sessionId)) {
                return;
            }
        }
        throw new IllegalArgumentException("no running server knows session 0x" + Long.toHexString(sessionId));
    }

    private synchronized List<Slot> snapshotSlots() {
        return List.copyOf(slots);
    }

    /** Closes the clients handed out, stops every server and deletes the temporary directories. Idempotent. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (ZkClient c : clients) {
            try {
                c.close();
            } catch (RuntimeException e) {
                // a client of a dead server may fail to close its session; it is closed locally anyway
            }
        }
        clients.clear();
        for (Slot s : slots) {
            if (s.server != null) {
                s.server.close();
                s.server = null;
            }
        }
        if (deleteBaseDir) {
            deleteRecursively(baseDir);
        }
    }

    private Slot slot(int i) {
        if (i < 0 || i >= slots.size()) {
            throw new IndexOutOfBoundsException("server " + i + " (ensemble has " + slots.size() + ")");
        }
        return slots.get(i);
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("ensemble is closed");
        }
    }

    private static void deleteRecursively(Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> s = Files.walk(dir)) {
            s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete " + dir, e);
        }
    }

    /** Settings of a {@link TestEnsemble}. */
    public static final class Builder {
        private int servers = 1;
        private Duration tickTime = Duration.ofMillis(100);
        private Duration minSessionTimeout = Duration.ofMillis(200);
        private Duration maxSessionTimeout = Duration.ofSeconds(60);
        private Duration clientSessionTimeout = Duration.ofSeconds(5);
        private int maxDataSize = ServerConfig.DEFAULT_MAX_DATA_SIZE;
        private Path baseDir;
        private Consumer<ServerConfig.Builder> configurer;

        private Builder() {
        }

        /** Number of servers; only 1 is supported until replication lands. */
        public Builder servers(int n) {
            if (n < 1) {
                throw new IllegalArgumentException("servers must be >= 1: " + n);
            }
            this.servers = n;
            return this;
        }

        public Builder tickTime(Duration tick) {
            this.tickTime = Objects.requireNonNull(tick, "tickTime");
            return this;
        }

        public Builder minSessionTimeout(Duration timeout) {
            this.minSessionTimeout = Objects.requireNonNull(timeout, "minSessionTimeout");
            return this;
        }

        public Builder maxSessionTimeout(Duration timeout) {
            this.maxSessionTimeout = Objects.requireNonNull(timeout, "maxSessionTimeout");
            return this;
        }

        /** Session timeout of clients from {@link TestEnsemble#newClient()} (default 5 s). */
        public Builder clientSessionTimeout(Duration timeout) {
            this.clientSessionTimeout = Objects.requireNonNull(timeout, "clientSessionTimeout");
            return this;
        }

        public Builder maxDataSize(int bytes) {
            this.maxDataSize = bytes;
            return this;
        }

        /** Keep the servers' data under this directory (not deleted at close) instead of a temp directory. */
        public Builder baseDir(Path dir) {
            this.baseDir = Objects.requireNonNull(dir, "baseDir");
            return this;
        }

        /** Further server settings, applied to every server's config builder. */
        public Builder configure(Consumer<ServerConfig.Builder> configurer) {
            this.configurer = configurer;
            return this;
        }

        /**
         * Starts the servers.
         *
         * @throws UnsupportedOperationException for more than one server: replication is not yet supported
         */
        public TestEnsemble start() {
            if (servers > 1) {
                throw new UnsupportedOperationException("replication not yet supported: TestEnsemble runs 1 server, "
                        + servers + " requested");
            }
            return new TestEnsemble(this);
        }
    }
}
