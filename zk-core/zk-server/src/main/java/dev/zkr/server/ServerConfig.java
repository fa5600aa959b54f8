package dev.zkr.server;

import dev.zkr.client.TlsConfig;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
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
    private final Path logDir;
    private final int tickTimeMs;
    private final int minSessionTimeoutMs;
    private final int maxSessionTimeoutMs;
    private final int maxDataSize;
    private final long snapshotInterval;
    private final java.util.function.LongSupplier wallClock;
    private final long logRetentionTxns;
    private final int maxConnections;
    private final int maxInFlightPerConnection;
    private final int serverId;
    private final Duration handshakeTimeout;
    private final Duration containerCheckInterval;
    private final int maxEphemeralsPerSession;
    private final int maxConnectionsPerHost;
    private final int outboundHighWaterMark;
    private final long maxOutboundBytesPerConnection;
    private final long maxOutboundBytesTotal;
    private final long maxInboundBytesTotal;
    private final Duration slowReaderTimeout;
    private final int maxTxnBytes;
    private final String superDigest;
    private final String x509SuperUser;
    private final List<dev.zkr.auth.AuthProvider> authProviders;
    private final dev.zkr.auth.Authorizer authorizer;
    private final List<Member> members;
    private final long logSegmentBytes;
    private final Duration electionTimeout;
    private final Duration heartbeatInterval;
    private final String ensembleName;
    private final boolean join;
    private final Long ensembleId;
    private final boolean reconfigEnabled;
    private final TlsConfig tls;
    private final TlsConfig quorumTls;
    private final boolean portUnification;
    private final Duration tlsReloadInterval;
    private final int adminPort;
    private final InetAddress adminAddress;
    private final List<dev.zkr.client.Id> adminAuth;
    private final boolean adminTls;
    private final java.util.Set<String> fourLetterWords;

    /**
     * One line {@code server.N=host:peerPort:clientPort} of an ensemble's member list: the server id, the host its
     * peers and clients reach it on, its peer port and its client port; {@code observer} for a ZooKeeper line
     * marked {@code :observer} (a member that serves clients and never votes, docs/membership.md).
     */
    public record Member(int id, String host, int peerPort, int clientPort, boolean observer) {
        /** A voter's line. */
        public Member(int id, String host, int peerPort, int clientPort) {
            this(id, host, peerPort, clientPort, false);
        }

        public Member {
            Objects.requireNonNull(host, "host");
            if (id < 1 || id > 255) {
                throw new IllegalArgumentException("server id must be in 1..255: " + id);
            }
            if (peerPort < 0 || peerPort > 65535 || clientPort < 0 || clientPort > 65535) {
                throw new IllegalArgumentException("port out of range in server." + id + "=" + host + ":" + peerPort
                        + ":" + clientPort);
            }
        }

        /** The member line as written in a config file: {@code host:peerPort:clientPort} ({@code :observer} after). */
        public String line() {
            return host + ":" + peerPort + ":" + clientPort + (observer ? ":observer" : "");
        }

        public InetSocketAddress peerAddress() {
            return new InetSocketAddress(host, peerPort);
        }
    }

    private ServerConfig(Builder b) {
        this.members = List.copyOf(b.members);
        this.logSegmentBytes = b.logSegmentBytes;
        MemberList.checkDistinct(members);
        Member own = members.stream().filter(m -> m.id() == b.serverId).findFirst().orElse(null);
        if (!members.isEmpty() && own == null) {
            throw new IllegalArgumentException("server id " + b.serverId + " is not in the member list "
                    + memberNames(members));
        }
        if (own != null && b.port != 0 && own.clientPort() != 0 && b.port != own.clientPort()) {
            throw new IllegalArgumentException("port " + b.port + " disagrees with server." + own.id() + "="
                    + own.line() + " (in an ensemble the client port is the last number of the server's own line)");
        }
        this.bindAddress = b.bindAddress;
        this.adminPort = b.adminPort;
        this.adminAddress = b.adminAddress;
        this.port = own != null && b.port == 0 ? own.clientPort() : b.port;
        this.dataDir = b.dataDir;
        this.logDir = b.logDir != null ? b.logDir : b.dataDir.resolve("log");
        this.tickTimeMs = b.tickTimeMs;
        this.minSessionTimeoutMs = b.minSessionTimeoutMs > 0 ? b.minSessionTimeoutMs : 2 * b.tickTimeMs;
        this.maxSessionTimeoutMs = b.maxSessionTimeoutMs > 0 ? b.maxSessionTimeoutMs : 20 * b.tickTimeMs;
        this.maxDataSize = b.maxDataSize;
        this.snapshotInterval = b.snapshotInterval;
        this.wallClock = b.wallClock;
        this.logRetentionTxns = b.logRetentionTxns;
        this.maxConnections = b.maxConnections;
        this.maxInFlightPerConnection = b.maxInFlightPerConnection;
        this.serverId = b.serverId;
        this.handshakeTimeout = b.handshakeTimeout;
        this.containerCheckInterval = b.containerCheckInterval;
        this.maxEphemeralsPerSession = b.maxEphemeralsPerSession;
        this.maxConnectionsPerHost = b.maxConnectionsPerHost;
        this.outboundHighWaterMark = b.outboundHighWaterMark;
        this.maxOutboundBytesPerConnection = b.maxOutboundBytesPerConnection > 0 ? b.maxOutboundBytesPerConnection
                : defaultMaxOutboundBytesPerConnection(maxDataSize);
        this.maxOutboundBytesTotal = b.maxOutboundBytesTotal;
        this.maxInboundBytesTotal = b.maxInboundBytesTotal;
        this.slowReaderTimeout = b.slowReaderTimeout;
        this.maxTxnBytes = b.maxTxnBytes;
        this.superDigest = b.superDigest;
        this.x509SuperUser = b.x509SuperUser;
        this.authProviders = List.copyOf(b.authProviders);
        List<dev.zkr.auth.AuthProvider> providers = new ArrayList<>();
        providers.add(new dev.zkr.auth.DigestAuthProvider(superDigest));
        providers.add(new dev.zkr.auth.IpAuthProvider());
        providers.add(new dev.zkr.auth.X509AuthProvider(x509SuperUser));
        providers.addAll(authProviders);
        this.authorizer = new dev.zkr.auth.Authorizer(providers);
        this.adminAuth = List.copyOf(b.adminAuth);
        for (dev.zkr.client.Id id : adminAuth) {
            dev.zkr.auth.AuthProvider p = authorizer.provider(id.scheme());
            if (p == null || !p.isValid(id.id())) {
                throw new IllegalArgumentException("admin.auth: " + (p == null ? "unknown scheme " + id.scheme()
                        : "malformed " + id.scheme() + " id") + " (ids are scheme:id as in ACLs, such as "
                        + "digest:ops:<base64 sha1> or x509:CN=ops,O=example, separated by ';')");
            }
        }
        this.adminTls = b.adminTls;
        java.util.Set<String> words = new java.util.TreeSet<>(b.fourLetterWords);
        words.add("srvr"); // as ZooKeeper: its scripts (zkServer.sh status) need it
        this.fourLetterWords = java.util.Collections.unmodifiableSet(words);
        if (adminTls && b.tls == null) {
            throw new IllegalArgumentException("admin.tls needs the client port's TLS settings (ssl.*): the admin "
                    + "endpoint serves TLS with the client port's key, trust and client-certificate settings");
        }
        this.electionTimeout = b.electionTimeout != null ? b.electionTimeout : defaultElectionTimeout(tickTimeMs);
        this.ensembleName = b.ensembleName;
        this.join = b.join;
        this.ensembleId = b.ensembleId;
        this.reconfigEnabled = b.reconfigEnabled;
        if (join && ensembleId == null) {
            throw new IllegalArgumentException("join needs the ensemble's id (ensembleId, as zkr members prints it)");
        }
        this.heartbeatInterval = b.heartbeatInterval != null ? b.heartbeatInterval
                : Duration.ofMillis(Math.max(10, electionTimeout.toMillis() / 10));
        this.tls = b.tls;
        this.quorumTls = b.quorumTls == null ? null
                : b.quorumTls.toBuilder().clientAuth(TlsConfig.ClientAuth.NEED).build(); // peers prove who they are
        this.portUnification = b.portUnification;
        this.tlsReloadInterval = b.tlsReloadInterval;
        if (tls != null && !tls.hasKeyMaterial()) {
            throw new IllegalArgumentException("TLS on the client port needs the server's certificate and key: set "
                    + "ssl.keyStore or ssl.certFile and ssl.keyFile");
        }
        if (quorumTls != null && (!quorumTls.hasKeyMaterial() || !quorumTls.hasTrustMaterial())) {
            throw new IllegalArgumentException("TLS on the peer port (sslQuorum) needs key and trust material: set "
                    + "ssl.quorum.keyStore and ssl.quorum.trustStore (or their ssl.* or PEM equivalents)");
        }
        if (portUnification && tls == null) {
            throw new IllegalArgumentException("portUnification needs TLS on the client port (ssl.keyStore or "
                    + "ssl.certFile)");
        }
        if (heartbeatInterval.compareTo(electionTimeout) >= 0) {
            throw new IllegalArgumentException("heartbeatInterval " + heartbeatInterval.toMillis() + " ms"
                    + (b.heartbeatInterval == null ? " (default: electionTimeout / 10, at least 10 ms)" : "")
                    + " must be shorter than electionTimeout " + electionTimeout.toMillis() + " ms");
        }
        if (members.size() > 1 && minSessionTimeoutMs < 4 * electionTimeout.toMillis()) {
            throw new IllegalArgumentException("minSessionTimeout " + minSessionTimeoutMs + " ms is shorter than "
                    + "2 x 2 x electionTimeout = " + 4 * electionTimeout.toMillis() + " ms: a failover would expire "
                    + "sessions; raise minSessionTimeout (default 2 x tickTime) or lower electionTimeout "
                    + "(default tickTime / 2, at least 200 ms)");
        }
        if (maxOutboundBytesPerConnection < maxDataSize + 256 * 1024) {
            throw new IllegalArgumentException("maxOutboundBytesPerConnection " + maxOutboundBytesPerConnection
                    + " is smaller than one frame (maxDataSize + 256 KiB)");
        }
        if (maxInboundBytesTotal < maxDataSize + 256 * 1024) {
            throw new IllegalArgumentException("maxInboundBytesTotal " + maxInboundBytesTotal
                    + " is smaller than one frame (maxDataSize + 256 KiB)");
        }
        if (outboundHighWaterMark > maxOutboundBytesPerConnection) {
            throw new IllegalArgumentException("outboundHighWaterMark exceeds maxOutboundBytesPerConnection");
        }
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
     * Reads the settings of a {@code zkr.properties} file ({@link ServerProperties} lists the keys). Bad settings
     * throw {@link IllegalArgumentException} with one message.
     */
    public static ServerConfig fromProperties(Properties p) {
        return ServerProperties.read(p);
    }

    static String memberNames(List<Member> members) {
        return String.join(", ", members.stream().map(m -> "server." + m.id()).toList());
    }

    private static long defaultMaxOutboundBytesPerConnection(int maxDataSize) {
        return Math.max(64L << 20, 4L * (maxDataSize + 256 * 1024));
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

    /**
     * The directory of the transaction log's segments: {@code dataDir/log} unless set apart (zoo.cfg's
     * {@code dataLogDir}: its {@code log} subdirectory), e.g. on a disk of its own.
     */
    public Path logDir() {
        return logDir;
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

    /**
     * The wall clock txn times come from (epoch ms; they never go back, whatever it does): the system clock, or
     * in tests one set apart from the clients' (e.g. a server whose clock is an hour behind).
     */
    public java.util.function.LongSupplier wallClock() {
        return wallClock;
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
    /** Most ephemeral nodes one session may own; one more create fails with {@code TooManyEphemerals}. */
    public int maxEphemeralsPerSession() {
        return maxEphemeralsPerSession;
    }

    /** Most open connections from one client IP address; more are closed on accept with one log line. */
    public int maxConnectionsPerHost() {
        return maxConnectionsPerHost;
    }

    /**
     * A connection's outbound bytes above which it is "not draining": the server stops reading its requests
     * (low water mark: half of it).
     */
    public int outboundHighWaterMark() {
        return outboundHighWaterMark;
    }

    /** Hard cap on one connection's unsent bytes: a write that takes it over closes the connection. */
    public long maxOutboundBytesPerConnection() {
        return maxOutboundBytesPerConnection;
    }

    /**
     * Server-wide budget of unsent bytes held for connections that are not draining; over it, such a connection
     * is closed when the server writes to it.
     */
    public long maxOutboundBytesTotal() {
        return maxOutboundBytesTotal;
    }

    /**
     * Server-wide budget of inbound bytes held for connections (read and not yet answered: partial frames and
     * requests in flight); over it, connections that hold inbound bytes are not read from until it is back within.
     */
    public long maxInboundBytesTotal() {
        return maxInboundBytesTotal;
    }

    /** How long a connection may stay above its high water mark before it is closed. */
    public Duration slowReaderTimeout() {
        return slowReaderTimeout;
    }

    /** Largest log record a txn may encode to; larger writes fail with {@code TxnTooLarge} (tests lower it). */
    public int maxTxnBytes() {
        return maxTxnBytes;
    }

    /** The super user's digest ({@code super:<base64 sha1>}), or null: whoever authenticates to it passes every ACL. */
    public String superDigest() {
        return superDigest;
    }

    /** The subject (RFC 2253) whose verified client certificate makes a connection super user, or null. */
    public String x509SuperUser() {
        return x509SuperUser;
    }

    /** The authentication schemes added to the built-in {@code digest}, {@code ip} and {@code x509}. */
    public List<dev.zkr.auth.AuthProvider> authProviders() {
        return authProviders;
    }

    /** The ACL rules over every scheme of this server (built-in and added). */
    public dev.zkr.auth.Authorizer authorizer() {
        return authorizer;
    }

    /** Size at which the log starts a new segment (default 64 MiB; old segments are purged whole). */
    public long logSegmentBytes() {
        return logSegmentBytes;
    }

    /** The ensemble's members ({@code server.N} lines), in id order; empty for a standalone server. */
    public List<Member> members() {
        return members;
    }

    /** True when the server is one of several members (replicated); false for a standalone server. */
    public boolean isEnsemble() {
        return members.size() > 1;
    }

    /** This server's own member line; empty for a standalone server. */
    public Optional<Member> self() {
        return members.stream().filter(m -> m.id() == serverId).findFirst();
    }

    /**
     * How long a follower waits without hearing its leader before it campaigns, and a leader without hearing a
     * quorum before it steps down (T, randomised in [T, 2T)). Default: half the tick time, at least 200 ms (a
     * ZooKeeper config with tickTime 2000 gives 1 s).
     */
    public Duration electionTimeout() {
        return electionTimeout;
    }

    /** How often the leader sends heartbeats (default: a tenth of the election timeout, at least 10 ms). */
    public Duration heartbeatInterval() {
        return heartbeatInterval;
    }

    /**
     * The ensemble's name, if configured ({@code ensembleName}): the ensemble id that peers check in their handshake
     * is then derived from the name and the member ids instead of the full member lines, for members that reach each
     * other at addresses that differ from member to member (proxies, NAT). Empty: derived from the member lines.
     */
    public Optional<String> ensembleName() {
        return Optional.ofNullable(ensembleName);
    }

    /**
     * Whether this server joins a running ensemble ({@code join=true}; docs/membership.md): its own member line is
     * not a voter of the starting membership (the other lines are the ensemble's), so it waits, neither campaigning
     * nor voting for itself, until a leader adds it. Needs {@link #ensembleId()}.
     */
    public boolean join() {
        return join;
    }

    /**
     * The ensemble id peers check in their handshake, if configured ({@code ensembleId}, hex): a server that joins a
     * running ensemble takes the id its first members derived from their lines. Empty: derived from the member lines
     * (or the name, {@link #ensembleName()}).
     */
    public java.util.OptionalLong ensembleId() {
        return ensembleId == null ? java.util.OptionalLong.empty() : java.util.OptionalLong.of(ensembleId);
    }

    /**
     * Whether ZooKeeper's {@code reconfig} opcode is served ({@code reconfigEnabled}, as in zoo.cfg; default false,
     * as ZooKeeper's): without it a ZooKeeper client's reconfig is answered RECONFIG_DISABLED. zkr's own membership
     * calls (its client's {@code reconfig}, {@code zkr reconfig}) need only the superuser (docs/membership.md).
     */
    public boolean reconfigEnabled() {
        return reconfigEnabled;
    }

    /** TLS settings of the client port, or null when it is plaintext only. */
    public TlsConfig tls() {
        return tls;
    }

    /** TLS settings of the peer port (client certificates always required), or null when it is plaintext. */
    public TlsConfig quorumTls() {
        return quorumTls;
    }

    /** Whether the client port serves TLS and plaintext clients side by side (needs {@link #tls()}). */
    public boolean portUnification() {
        return portUnification;
    }

    /** How often the TLS files are checked for renewed certificates (default 5 s). */
    public Duration tlsReloadInterval() {
        return tlsReloadInterval;
    }

    /**
     * The admin HTTP endpoint's port ({@code /metrics}, {@code /status}, {@code /health}, the web console): -1 (the
     * default) leaves it off; 0 picks a free port ({@link ZkServer#adminPort()} tells which).
     */
    public int adminPort() {
        return adminPort;
    }

    /** True if the admin endpoint is configured. */
    public boolean adminEnabled() {
        return adminPort >= 0;
    }

    /** The address the admin endpoint binds (default: loopback, whatever the client port binds). */
    public InetAddress adminAddress() {
        return adminAddress;
    }

    /**
     * The ids ({@code admin.auth}) that may see the admin endpoint's admin-only views (sessions, watches, the recipe
     * scan); empty: the super user if one is configured, else any client on loopback.
     */
    public List<dev.zkr.client.Id> adminAuth() {
        return adminAuth;
    }

    /** Whether the admin endpoint serves TLS with the client port's settings ({@code admin.tls}). */
    public boolean adminTls() {
        return adminTls;
    }

    /**
     * The four-letter words the client port answers ({@code 4lw.commands.whitelist}): by default {@code srvr} alone,
     * as ZooKeeper 3.9, which always adds {@code srvr}; any other known word gets ZooKeeper's "not in the whitelist"
     * line.
     */
    public java.util.Set<String> fourLetterWords() {
        return fourLetterWords;
    }

    static Duration defaultElectionTimeout(int tickTimeMs) {
        return Duration.ofMillis(Math.max(200, tickTimeMs / 2));
    }

    public ServerConfig withPort(int newPort) {
        return toBuilder().port(newPort).build();
    }

    /** A builder holding these settings. */
    public Builder toBuilder() {
        Builder b = new Builder(dataDir);
        b.logDir = logDir.equals(dataDir.resolve("log")) ? null : logDir;
        b.bindAddress = bindAddress;
        b.port = port;
        b.tickTimeMs = tickTimeMs;
        b.minSessionTimeoutMs = minSessionTimeoutMs;
        b.maxSessionTimeoutMs = maxSessionTimeoutMs;
        b.maxDataSize = maxDataSize;
        b.snapshotInterval = snapshotInterval;
        b.wallClock = wallClock;
        b.logRetentionTxns = logRetentionTxns;
        b.maxConnections = maxConnections;
        b.maxInFlightPerConnection = maxInFlightPerConnection;
        b.serverId = serverId;
        b.handshakeTimeout = handshakeTimeout;
        b.containerCheckInterval = containerCheckInterval;
        b.maxEphemeralsPerSession = maxEphemeralsPerSession;
        b.maxConnectionsPerHost = maxConnectionsPerHost;
        b.outboundHighWaterMark = outboundHighWaterMark;
        b.maxOutboundBytesPerConnection = maxOutboundBytesPerConnection == defaultMaxOutboundBytesPerConnection(maxDataSize)
                ? -1 : maxOutboundBytesPerConnection; // a default follows a changed maxDataSize
        b.maxOutboundBytesTotal = maxOutboundBytesTotal;
        b.maxInboundBytesTotal = maxInboundBytesTotal;
        b.slowReaderTimeout = slowReaderTimeout;
        b.maxTxnBytes = maxTxnBytes;
        b.superDigest = superDigest;
        b.x509SuperUser = x509SuperUser;
        b.authProviders = new ArrayList<>(authProviders);
        b.members = new ArrayList<>(members);
        b.logSegmentBytes = logSegmentBytes;
        b.electionTimeout = electionTimeout;
        b.heartbeatInterval = heartbeatInterval;
        b.ensembleName = ensembleName;
        b.join = join;
        b.ensembleId = ensembleId;
        b.reconfigEnabled = reconfigEnabled;
        b.tls = tls;
        b.quorumTls = quorumTls;
        b.portUnification = portUnification;
        b.tlsReloadInterval = tlsReloadInterval;
        b.adminPort = adminPort;
        b.adminAddress = adminAddress;
        b.adminAuth = new ArrayList<>(adminAuth);
        b.adminTls = adminTls;
        b.fourLetterWords = new java.util.TreeSet<>(fourLetterWords);
        return b;
    }

    @Override
    public String toString() {
        return "ServerConfig{" + bindAddress.getHostAddress() + ":" + port + ", dataDir=" + dataDir
                + (logDir.equals(dataDir.resolve("log")) ? "" : ", logDir=" + logDir)
                + ", tick=" + tickTimeMs + "ms, sessionTimeout=" + minSessionTimeoutMs + ".." + maxSessionTimeoutMs
                + "ms, maxDataSize=" + maxDataSize + ", serverId=" + serverId
                + (members.isEmpty() ? "" : ", members=" + members.stream().map(m -> m.id() + "=" + m.line()).toList()
                + ", electionTimeout=" + electionTimeout.toMillis() + "ms, heartbeat="
                + heartbeatInterval.toMillis() + "ms")
                + (adminPort >= 0 ? ", admin=" + adminAddress.getHostAddress() + ":" + adminPort : "") + "}";
    }

    /** Builder of {@link ServerConfig}. */
    public static final class Builder {
        private InetAddress bindAddress = InetAddress.getLoopbackAddress();
        private int port;
        private final Path dataDir;
        private Path logDir;
        private int tickTimeMs = 2000;
        private int minSessionTimeoutMs = -1;
        private int maxSessionTimeoutMs = -1;
        private int maxDataSize = DEFAULT_MAX_DATA_SIZE;
        private long snapshotInterval = 100_000;
        private java.util.function.LongSupplier wallClock = System::currentTimeMillis;
        private long logRetentionTxns;
        private int maxConnections = 10_000;
        private int maxInFlightPerConnection = 1_000;
        private int serverId = 1;
        private Duration handshakeTimeout = Duration.ofSeconds(5);
        private Duration containerCheckInterval = Duration.ofSeconds(1);
        private int maxEphemeralsPerSession = dev.zkr.tree.TxnPreparer.DEFAULT_MAX_EPHEMERALS_PER_SESSION;
        private int maxConnectionsPerHost = 60;
        private int outboundHighWaterMark = 64 * 1024;
        private long maxOutboundBytesPerConnection = -1; // default: max(64 MiB, 4 frames)
        private long maxOutboundBytesTotal = 512L << 20;
        private long maxInboundBytesTotal = 256L << 20;
        private Duration slowReaderTimeout = Duration.ofSeconds(15);
        private int maxTxnBytes = dev.zkr.tree.TxnPreparer.DEFAULT_MAX_TXN_BYTES;
        private String superDigest;
        private String x509SuperUser;
        private List<dev.zkr.auth.AuthProvider> authProviders = new ArrayList<>();
        private List<Member> members = new ArrayList<>();
        private long logSegmentBytes = dev.zkr.storage.LogConfig.DEFAULT_SEGMENT_BYTES;
        private Duration electionTimeout;
        private Duration heartbeatInterval;
        private String ensembleName;
        private boolean join;
        private Long ensembleId;
        private boolean reconfigEnabled;
        private TlsConfig tls;
        private TlsConfig quorumTls;
        private boolean portUnification;
        private Duration tlsReloadInterval = Duration.ofSeconds(5);
        private int adminPort = -1;
        private InetAddress adminAddress = InetAddress.getLoopbackAddress();
        private List<dev.zkr.client.Id> adminAuth = new ArrayList<>();
        private boolean adminTls;
        private java.util.Set<String> fourLetterWords = new java.util.TreeSet<>(List.of("srvr"));

        private Builder(Path dataDir) {
            this.dataDir = Objects.requireNonNull(dataDir, "dataDir");
        }

        /** The transaction log's directory, when not {@code dataDir/log} (see {@link ServerConfig#logDir()}). */
        public Builder logDir(Path dir) {
            this.logDir = Objects.requireNonNull(dir, "logDir");
            return this;
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

        /** See {@link ServerConfig#wallClock()}; default the system clock. */
        public Builder wallClock(java.util.function.LongSupplier clock) {
            this.wallClock = java.util.Objects.requireNonNull(clock, "clock");
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

        /** Most ephemeral nodes one session may own (default 100,000). */
        public Builder maxEphemeralsPerSession(int max) {
            this.maxEphemeralsPerSession = positive(max, "maxEphemeralsPerSession");
            return this;
        }

        /** Most open connections from one client IP address (default 60, as ZooKeeper's maxClientCnxns). */
        public Builder maxConnectionsPerHost(int max) {
            this.maxConnectionsPerHost = positive(max, "maxConnectionsPerHost");
            return this;
        }

        /** Outbound bytes above which a connection is not read from (default 64 KiB; resumes below half). */
        public Builder outboundHighWaterMark(int bytes) {
            this.outboundHighWaterMark = positive(bytes, "outboundHighWaterMark");
            return this;
        }

        /** Hard cap on one connection's unsent bytes (default max(64 MiB, 4 × the frame limit)). */
        public Builder maxOutboundBytesPerConnection(long bytes) {
            if (bytes <= 0) {
                throw new IllegalArgumentException("maxOutboundBytesPerConnection must be positive: " + bytes);
            }
            this.maxOutboundBytesPerConnection = bytes;
            return this;
        }

        /** Server-wide budget of unsent bytes of connections that are not draining (default 512 MiB). */
        public Builder maxOutboundBytesTotal(long bytes) {
            if (bytes <= 0) {
                throw new IllegalArgumentException("maxOutboundBytesTotal must be positive: " + bytes);
            }
            this.maxOutboundBytesTotal = bytes;
            return this;
        }

        /** Server-wide budget of inbound bytes read and not yet answered (default 256 MiB; at least one frame). */
        public Builder maxInboundBytesTotal(long bytes) {
            if (bytes <= 0) {
                throw new IllegalArgumentException("maxInboundBytesTotal must be positive: " + bytes);
            }
            this.maxInboundBytesTotal = bytes;
            return this;
        }

        /** How long a connection may stay above its high water mark before it is closed (default 15 s). */
        public Builder slowReaderTimeout(Duration timeout) {
            positiveMillis(timeout, "slowReaderTimeout");
            this.slowReaderTimeout = timeout;
            return this;
        }

        /** Largest encoded txn (default and ceiling: the log's 64 MiB record limit); a test hook to lower it. */
        public Builder maxTxnBytes(int bytes) {
            if (bytes <= 0 || bytes > dev.zkr.tree.TxnPreparer.DEFAULT_MAX_TXN_BYTES) {
                throw new IllegalArgumentException("maxTxnBytes out of range: " + bytes);
            }
            this.maxTxnBytes = bytes;
            return this;
        }

        /**
         * The super user's digest, as ZooKeeper's {@code zookeeper.DigestAuthenticationProvider.superDigest}:
         * {@code super:<base64 sha1>} ({@code Acls.generateDigest("super:password")}); null = none.
         */
        public Builder superDigest(String digest) {
            if (digest != null && digest.split(":").length != 2) {
                throw new IllegalArgumentException("superDigest must look like super:<base64 sha1>");
            }
            this.superDigest = digest;
            return this;
        }

        /**
         * The subject of the client certificate that is super user ({@code ssl.x509SuperUser}, as ZooKeeper's
         * {@code zookeeper.X509AuthenticationProvider.superUser}), in RFC 2253 form as the {@code x509} ids show
         * it ({@code CN=admin,O=example}); null = none.
         */
        public Builder x509SuperUser(String subject) {
            this.x509SuperUser = subject;
            return this;
        }

        /** Adds an authentication scheme (one per scheme; it may replace the built-in digest, ip or x509). */
        public Builder authProvider(dev.zkr.auth.AuthProvider provider) {
            this.authProviders.add(Objects.requireNonNull(provider, "provider"));
            return this;
        }

        /** The ensemble's member list (every member, this server included); empty (default) = standalone. */
        public Builder members(List<Member> members) {
            this.members = new ArrayList<>(members);
            this.members.sort(java.util.Comparator.comparingInt(Member::id));
            return this;
        }

        /** Adds one member line {@code server.id=host:peerPort:clientPort}. */
        public Builder member(int id, String host, int peerPort, int clientPort) {
            members.add(new Member(id, host, peerPort, clientPort));
            members.sort(java.util.Comparator.comparingInt(Member::id));
            return this;
        }

        /** See {@link ServerConfig#logSegmentBytes()} (at least 4 KiB; tests lower it to make purges, and SNAP, happen). */
        public Builder logSegmentBytes(long bytes) {
            if (bytes < 4096) {
                throw new IllegalArgumentException("logSegmentBytes must be >= 4096: " + bytes);
            }
            this.logSegmentBytes = bytes;
            return this;
        }

        /** See {@link ServerConfig#ensembleName()}; null or blank: none. */
        public Builder ensembleName(String name) {
            this.ensembleName = name == null || name.isBlank() ? null : name.strip();
            return this;
        }

        /** See {@link ServerConfig#join()}. */
        public Builder join(boolean join) {
            this.join = join;
            return this;
        }

        /** See {@link ServerConfig#ensembleId()}. */
        public Builder ensembleId(long id) {
            this.ensembleId = id;
            return this;
        }

        /** See {@link ServerConfig#reconfigEnabled()}. */
        public Builder reconfigEnabled(boolean enabled) {
            this.reconfigEnabled = enabled;
            return this;
        }

        /** See {@link ServerConfig#electionTimeout()}. */
        public Builder electionTimeout(Duration timeout) {
            positiveMillis(timeout, "electionTimeout");
            this.electionTimeout = timeout;
            return this;
        }

        /** See {@link ServerConfig#heartbeatInterval()}. */
        public Builder heartbeatInterval(Duration interval) {
            positiveMillis(interval, "heartbeatInterval");
            this.heartbeatInterval = interval;
            return this;
        }

        /** TLS on the client port with this key (and, for client certificates, trust) material; null = plaintext. */
        public Builder tls(TlsConfig tls) {
            this.tls = tls;
            return this;
        }

        /** TLS on the peer port (mutual: every member needs key and trust material); null = plaintext. */
        public Builder quorumTls(TlsConfig tls) {
            this.quorumTls = tls;
            return this;
        }

        /** Serve TLS and plaintext clients on the one client port (a migration aid; default false). */
        public Builder portUnification(boolean unify) {
            this.portUnification = unify;
            return this;
        }

        /** How often the TLS files are checked for renewed certificates (default 5 s). */
        public Builder tlsReloadInterval(Duration interval) {
            positiveMillis(interval, "tlsReloadInterval");
            this.tlsReloadInterval = interval;
            return this;
        }

        /**
         * The four-letter words the client port answers (ZooKeeper's {@code 4lw.commands.whitelist}; {@code srvr} is
         * always among them). Each must be one ZooKeeper 3.9 knows ({@code ruok}, {@code mntr}, ...).
         */
        public Builder fourLetterWords(java.util.Collection<String> words) {
            java.util.Set<String> set = new java.util.TreeSet<>();
            for (String w : words) {
                if (!dev.zkr.server.zookeeper.FirstFrame.knownWords().contains(w)) {
                    throw new IllegalArgumentException("4lw.commands.whitelist: unknown four-letter word '" + w
                            + "' (known: " + String.join(", ", dev.zkr.server.zookeeper.FirstFrame.knownWords())
                            + ", or * for all)");
                }
                set.add(w);
            }
            this.fourLetterWords = set;
            return this;
        }

        /** Turns the admin HTTP endpoint on, on this port (0: any free port; -1: off, the default). */
        public Builder adminPort(int port) {
            if (port < -1 || port > 65535) {
                throw new IllegalArgumentException("adminPort out of range: " + port);
            }
            this.adminPort = port;
            return this;
        }

        /** The address the admin endpoint binds (default loopback). */
        public Builder adminAddress(InetAddress address) {
            this.adminAddress = Objects.requireNonNull(address, "adminAddress");
            return this;
        }

        /**
         * The ids that may see the admin endpoint's admin-only views ({@code admin.auth}), as ACL ids: a digest user
         * ({@code digest:ops:<base64 sha1>}, as {@code Acls.generateDigest("ops:pw")}), an x509 subject, an ip or
         * ip range; the super user always may. None (the default): the super user, else loopback clients.
         */
        public Builder adminAuth(List<dev.zkr.client.Id> ids) {
            this.adminAuth = new ArrayList<>(ids);
            return this;
        }

        /**
         * Serve the admin endpoint over TLS with the client port's settings ({@code admin.tls}; needs {@link #tls}):
         * a verified client certificate gives the request the {@code x509} id of its subject.
         */
        public Builder adminTls(boolean on) {
            this.adminTls = on;
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
