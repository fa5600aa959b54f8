package dev.zkr.server;

import java.net.InetAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.Properties;

/**
 * Settings of one zkr server. Build with {@link #builder(Path)}; only the data directory is required. Session timeouts
 * default to 2× and 20× the tick time, as in ZooKeeper.
 */
public final class ServerConfig {

    /** Default largest node data size: 1 MiB. */
    public static final int DEFAULT_MAX_DATA_SIZE = 1024 * 1024;

    private final InetAddress bindAddress;
    private final int port;
    private final Path dataDir;
    private final int tickTimeMs;
    private final int minSessionTimeoutMs;
    private final int maxSessionTimeoutMs;
    private final int maxDataSize;
    private final long snapshotInterval;
    private final long logRetentionTxns;
    private final int maxConnections;
    private final int maxInFlightPerConnection;
    private final int serverId;
    private final Duration handshakeTimeout;
    private final Duration containerCheckInterval;

    private ServerConfig(Builder b) {
        this.bindAddress = b.bindAddress;
        this.port = b.port;
        this.dataDir = b.dataDir;
        this.tickTimeMs = b.tickTimeMs;
        this.minSessionTimeoutMs = b.minSessionTimeoutMs > 0 ? b.minSessionTimeoutMs : 2 * b.tickTimeMs;
        this.maxSessionTimeoutMs = b.maxSessionTimeoutMs > 0 ? b.maxSessionTimeoutMs : 20 * b.tickTimeMs;
        this.maxDataSize = b.maxDataSize;
        this.snapshotInterval = b.snapshotInterval;
        this.logRetentionTxns = b.logRetentionTxns;
        this.maxConnections = b.maxConnections;
        this.maxInFlightPerConnection = b.maxInFlightPerConnection;
        this.serverId = b.serverId;
        this.handshakeTimeout = b.handshakeTimeout;
        this.containerCheckInterval = b.containerCheckInterval;
        if (minSessionTimeoutMs > maxSessionTimeoutMs) {
            throw new IllegalArgumentException("minSessionTimeout " + minSessionTimeoutMs
                    + " ms exceeds maxSessionTimeout " + maxSessionTimeoutMs + " ms");
        }
    }

    /** A builder with defaults; the data directory holds the transaction log and snapshots. */
    public static Builder builder(Path dataDir) {
        return new Builder(dataDir);
    }

    /**
     * Reads {@code port, dataDir, tickTime, minSessionTimeout, maxSessionTimeout, maxDataSize, snapshotInterval,
     * logRetentionTxns, maxConnections, serverId, bindAddress} (dataDir required) as in {@code zkr.properties}.
     */
    public static ServerConfig fromProperties(Properties p) {
        String dir = p.getProperty("dataDir");
        if (dir == null || dir.isBlank()) {
            throw new IllegalArgumentException("dataDir is required");
        }
        Builder b = builder(Path.of(dir.trim()));
        String v;
        if ((v = p.getProperty("port", p.getProperty("clientPort"))) != null) {
            b.port(parseInt("port", v));
        }
        if ((v = p.getProperty("tickTime")) != null) {
            b.tickTime(Duration.ofMillis(parseInt("tickTime", v)));
        }
        if ((v = p.getProperty("minSessionTimeout")) != null) {
            b.minSessionTimeout(Duration.ofMillis(parseInt("minSessionTimeout", v)));
        }
        if ((v = p.getProperty("maxSessionTimeout")) != null) {
            b.maxSessionTimeout(Duration.ofMillis(parseInt("maxSessionTimeout", v)));
        }
        if ((v = p.getProperty("maxDataSize")) != null) {
            b.maxDataSize(parseInt("maxDataSize", v));
        }
        if ((v = p.getProperty("snapshotInterval")) != null) {
            b.snapshotInterval(parseInt("snapshotInterval", v));
        }
        if ((v = p.getProperty("logRetentionTxns")) != null) {
            b.logRetentionTxns(parseInt("logRetentionTxns", v));
        }
        if ((v = p.getProperty("maxConnections")) != null) {
            b.maxConnections(parseInt("maxConnections", v));
        }
        if ((v = p.getProperty("serverId")) != null) {
            b.serverId(parseInt("serverId", v));
        }
        if ((v = p.getProperty("bindAddress")) != null) {
            b.bindAddress(parseAddress(v));
        }
        return b.build();
    }

    static int parseInt(String key, String value) {
        try {
            return Integer.parseInt(value.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(key + " is not a number: '" + value + "'");
        }
    }

    static InetAddress parseAddress(String value) {
        try {
            return InetAddress.getByName(value.trim());
        } catch (java.net.UnknownHostException e) {
            throw new IllegalArgumentException("unknown bind address: " + value);
        }
    }

    /** Address the client port binds to (default: loopback). */
    public InetAddress bindAddress() {
        return bindAddress;
    }

    /** Client port; 0 picks a free port ({@link ZkServer#port()} tells which). */
    public int port() {
        return port;
    }

    public Path dataDir() {
        return dataDir;
    }

    public int tickTimeMs() {
        return tickTimeMs;
    }

    public int minSessionTimeoutMs() {
        return minSessionTimeoutMs;
    }

    public int maxSessionTimeoutMs() {
        return maxSessionTimeoutMs;
    }

    /** Largest node data in bytes. */
    public int maxDataSize() {
        return maxDataSize;
    }

    /** Number of transactions between background snapshots. */
    public long snapshotInterval() {
        return snapshotInterval;
    }

    /** Log records kept behind the newest snapshot for follower catch-up, whatever the snapshots allow (0 = none). */
    public long logRetentionTxns() {
        return logRetentionTxns;
    }

    public int maxConnections() {
        return maxConnections;
    }

    /** Requests of one connection in flight before the server stops reading from it. */
    public int maxInFlightPerConnection() {
        return maxInFlightPerConnection;
    }

    /** Server id (1..255); part of every session id this server creates. */
    public int serverId() {
        return serverId;
    }

    /** How long a new connection may take to send its ConnectRequest. */
    public Duration handshakeTimeout() {
        return handshakeTimeout;
    }

    /** How often empty containers are looked for. */
    public Duration containerCheckInterval() {
        return containerCheckInterval;
    }

    /** The same settings on another port (used to restart a server on the port it had). */
    public ServerConfig withPort(int newPort) {
        return toBuilder().port(newPort).build();
    }

    /** A builder holding these settings. */
    public Builder toBuilder() {
        Builder b = new Builder(dataDir);
        b.bindAddress = bindAddress;
        b.port = port;
        b.tickTimeMs = tickTimeMs;
        b.minSessionTimeoutMs = minSessionTimeoutMs;
        b.maxSessionTimeoutMs = maxSessionTimeoutMs;
        b.maxDataSize = maxDataSize;
        b.snapshotInterval = snapshotInterval;
        b.logRetentionTxns = logRetentionTxns;
        b.maxConnections = maxConnections;
        b.maxInFlightPerConnection = maxInFlightPerConnection;
        b.serverId = serverId;
        b.handshakeTimeout = handshakeTimeout;
        b.containerCheckInterval = containerCheckInterval;
        return b;
    }

    @Override
    public String toString() {
        return "ServerConfig{" + bindAddress.getHostAddress() + ":" + port + ", dataDir=" + dataDir
                + ", tick=" + tickTimeMs + "ms, sessionTimeout=" + minSessionTimeoutMs + ".." + maxSessionTimeoutMs
                + "ms, maxDataSize=" + maxDataSize + ", serverId=" + serverId + "}";
    }

    /** Builder of {@link ServerConfig}. */
    public static final class Builder {
        private InetAddress bindAddress = InetAddress.getLoopbackAddress();
        private int port;
        private final Path dataDir;
        private int tickTimeMs = 2000;
        private int minSessionTimeoutMs = -1;
        private int maxSessionTimeoutMs = -1;
        private int maxDataSize = DEFAULT_MAX_DATA_SIZE;
        private long snapshotInterval = 100_000;
        private long logRetentionTxns;
        private int maxConnections = 10_000;
        private int maxInFlightPerConnection = 1_000;
        private int serverId = 1;
        private Duration handshakeTimeout = Duration.ofSeconds(5);
        private Duration containerCheckInterval = Duration.ofSeconds(1);

        private Builder(Path dataDir) {
            this.dataDir = Objects.requireNonNull(dataDir, "dataDir");
        }

        public Builder bindAddress(InetAddress address) {
            this.bindAddress = Objects.requireNonNull(address, "bindAddress");
            return this;
        }

        public Builder port(int port) {
            if (port < 0 || port > 65535) {
                throw new IllegalArgumentException("port out of range: " + port);
            }
            this.port = port;
            return this;
        }

        public Builder tickTime(Duration tick) {
            this.tickTimeMs = positiveMillis(tick, "tickTime");
            return this;
        }

        public Builder minSessionTimeout(Duration timeout) {
            this.minSessionTimeoutMs = positiveMillis(timeout, "minSessionTimeout");
            return this;
        }

        public Builder maxSessionTimeout(Duration timeout) {
            this.maxSessionTimeoutMs = positiveMillis(timeout, "maxSessionTimeout");
            return this;
        }

        public Builder maxDataSize(int bytes) {
            this.maxDataSize = positive(bytes, "maxDataSize");
            return this;
        }

        public Builder snapshotInterval(long txns) {
            if (txns <= 0) {
                throw new IllegalArgumentException("snapshotInterval must be positive: " + txns);
            }
            this.snapshotInterval = txns;
            return this;
        }

        /** See {@link ServerConfig#logRetentionTxns()}; default 0. */
        public Builder logRetentionTxns(long txns) {
            if (txns < 0) {
                throw new IllegalArgumentException("logRetentionTxns must be >= 0: " + txns);
            }
            this.logRetentionTxns = txns;
            return this;
        }

        public Builder maxConnections(int max) {
            this.maxConnections = positive(max, "maxConnections");
            return this;
        }

        public Builder maxInFlightPerConnection(int max) {
            this.maxInFlightPerConnection = positive(max, "maxInFlightPerConnection");
            return this;
        }

        public Builder serverId(int id) {
            if (id < 1 || id > 255) {
                throw new IllegalArgumentException("serverId must be in 1..255: " + id);
            }
            this.serverId = id;
            return this;
        }

        public Builder handshakeTimeout(Duration timeout) {
            positiveMillis(timeout, "handshakeTimeout");
            this.handshakeTimeout = timeout;
            return this;
        }

        public Builder containerCheckInterval(Duration interval) {
            positiveMillis(interval, "containerCheckInterval");
            this.containerCheckInterval = interval;
            return this;
        }

        public ServerConfig build() {
            return new ServerConfig(this);
        }

        private static int positive(int v, String name) {
            if (v <= 0) {
                throw new IllegalArgumentException(name + " must be positive: " + v);
            }
            return v;
        }

        private static int positiveMillis(Duration d, String name) {
            Objects.requireNonNull(d, name);
            if (d.isNegative() || d.isZero() || d.toMillis() > Integer.MAX_VALUE) {
                throw new IllegalArgumentException(name + " out of range: " + d);
            }
            return (int) Math.max(1, d.toMillis());
        }
    }
}
