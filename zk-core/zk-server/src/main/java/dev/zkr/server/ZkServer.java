package dev.zkr.server;

import dev.zkr.server.admin.AdminServer;
import dev.zkr.server.admin.ServerMetrics;
import dev.zkr.server.port.NettyServer;
import dev.zkr.server.round.Core;
import dev.zkr.server.replication.PeerOutbox;
import dev.zkr.server.replication.ReplicaDriver;
import dev.zkr.session.SessionTable;
import dev.zkr.storage.LogConfig;
import dev.zkr.storage.Recovery;
import dev.zkr.storage.SnapshotStore;
import dev.zkr.storage.Snapshotter;
import dev.zkr.storage.TxnLog;
import dev.zkr.tree.DataTree;
import dev.zkr.tree.Txn;
import dev.zkr.tree.TxnCodec;
import dev.zkr.consensus.Role;
import dev.zkr.consensus.RoleInfo;
import dev.zkr.consensus.Zxid;
import dev.zkr.server.peer.LinkFilter;
import dev.zkr.server.peer.PeerConfig;
import dev.zkr.server.peer.PeerTransport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.security.SecureRandom;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * A zkr server — standalone (an ensemble of one) or a member of an ensemble ({@link ServerConfig#members()}):
 * recovers its data directory, then serves clients on its port until {@link #close()}. Start with
 * {@link #start(ServerConfig)}. Its parts, by package: the client port ({@code dev.zkr.server.port}), the round
 * ({@code dev.zkr.server.round}), replication ({@code dev.zkr.server.replication}, {@code dev.zkr.server.peer}) and
 * the admin endpoint ({@code dev.zkr.server.admin}), wired by {@code Assembler} (docs/architecture.md, Code map).
 *
 * <p>Data directory layout: {@code log/} (transaction log segments), {@code snapshots/} and, for a replica,
 * {@code consensus.meta} (docs/storage.md).
 */
public final class ZkServer implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(ZkServer.class);

    private final ServerConfig config;
    private final TxnLog txnLog;
    private final Snapshotter snapshotter;
    private final DataTree tree;
    private final Core core;
    private final ReplicaDriver driver;
    private final LinkFilter linkFilter;
    private final PeerTransport peers;
    private final NettyServer netty;
    private final InetSocketAddress address;
    /** The admin endpoint and its metrics, or null when not configured. */
    private final ServerMetrics metrics;
    private final AdminServer admin;
    private final InetSocketAddress adminAddress;
    private final Object lifecycle = new Object();
    private boolean closed;

    private ZkServer(ServerConfig config, LinkFilter linkFilter) {
        this.config = config;
        this.linkFilter = linkFilter;
        try {
            dev.zkr.storage.StorageFiles.createDirectories(config.dataDir());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create data directory " + config.dataDir(), e);
        }
        SnapshotStore snapshots = SnapshotStore.open(config.dataDir().resolve("snapshots"));
        this.txnLog = TxnLog.open(config.logDir(),
                LogConfig.defaults().withRetainTxns(config.logRetentionTxns())
                        .withSegmentBytes(config.logSegmentBytes()));
        boolean replica = config.isEnsemble() || Assembler.standaloneUsesReplica();
        Recovery.Result<DataTree> recovered;
        List<TxnCodec.Entry> tail;
        try {
            Recovery.Applier<DataTree> applier = (t, record) -> {
                TxnCodec.Entry e = TxnCodec.decode(record.payload());
                t.apply(e.header(), e.txn());
            };
            // a replica applies only up to the durable commit mark (P7); its tail is committed by its EPOCH record
            recovered = replica
                    ? Recovery.recoverCommitted(snapshots, txnLog, (zxid, in) -> DataTree.readSnapshot(in),
                            DataTree::new, applier)
                    : Recovery.recover(snapshots, txnLog, (zxid, in) -> DataTree.readSnapshot(in), DataTree::new,
                            applier);
            tail = replica ? Assembler.readTail(txnLog, recovered.appliedZxid()) : List.of();
        } catch (RuntimeException e) {
            txnLog.close();
            throw e;
        }
        this.tree = recovered.state();
        long lastZxid = Math.max(Math.max(recovered.lastZxid(), tree.lastZxid()), txnLog.lastZxid());
        long now = System.currentTimeMillis();

        byte[] secret = new byte[32];
        new SecureRandom().nextBytes(secret);
        SessionTable sessions = new SessionTable(new SessionTable.Config(config.serverId(),
                config.minSessionTimeoutMs(), config.maxSessionTimeoutMs()), now, secret);
        sessions.restore(tree.sessions().values(), Core.roundClock()); // deadlines count on the round clock
        this.snapshotter = new Snapshotter(snapshots, txnLog,
                new Snapshotter.Policy(config.snapshotInterval(), 0, 3), zxid -> tree::writeSnapshot);
        Assembler.Parts parts;
        PeerOutbox link = new PeerOutbox();
        try {
            parts = replica
                    ? Assembler.replica(config, tree, tail, sessions, txnLog, snapshots,
                            Math.max(0, recovered.snapshotZxid()), snapshotter, link, config.wallClock())
                    : Assembler.standalone(config, tree, lastZxid, sessions, txnLog, snapshotter,
                            config.wallClock());
        } catch (RuntimeException e) {
            snapshotter.close();
            txnLog.close();
            throw e;
        }
        this.core = parts.core();
        this.driver = parts.driver();
        this.peers = config.isEnsemble() ? new PeerTransport(peerConfig(config), new PeerTransport.Listener() {
            @Override
            public void received(int from, Object message) {
                core.peerIn(from, message);
            }

            @Override
            public void receivedAll(int from, List<Object> messages) {
                core.peerIn(from, messages);
            }

            @Override
            public void peerUp(int id) {
                core.peerUp(id);
            }

            @Override
            public void peerDown(int id) {
                core.peerDown(id);
            }
        }, linkFilter, config.quorumTls(), config.tlsReloadInterval().toMillis()) : null;
        link.connect(peers);
        ServerMetrics.Outstanding outstanding = new ServerMetrics.Outstanding();
        this.metrics = config.adminEnabled() ? newMetrics(core, txnLog, snapshotter, driver, outstanding) : null;
        this.netty = new NettyServer(config, core, metrics, tree, parts.watches());
        outstanding.from(netty);
        this.admin = metrics == null ? null : AdminServer.of(config, core, tree, parts.watches(), driver, netty,
                metrics, Assembler.ensembleIdOf(config));
        // a failed log or pipeline ends the server: clients see the connection drop and go elsewhere
        core.onFatal(() -> new Thread(this::kill, "zkr-fatal-stop").start());
        core.start();
        try {
            if (peers != null) {
                // an ensemble member takes clients at once: handshakes are held until it serves (a leader is
                // elected and it caught up), so the members can start in any order
                startPeers(peers);
            } else {
                awaitServing(core);
            }
            this.address = netty.bind(new InetSocketAddress(config.bindAddress(), config.port()));
            this.adminAddress = admin == null ? null
                    : admin.bind(new InetSocketAddress(config.adminAddress(), config.adminPort()));
        } catch (RuntimeException e) {
            if (admin != null) {
                admin.close();
            }
            core.kill();
            if (peers != null) {
                peers.close();
            }
            netty.shutdown(false);
            snapshotter.close();
            txnLog.close();
            throw e;
        }
        log.info("zkr server {} listening on {} (data dir {}, last zxid {}, {} sessions restored, {} nodes)",
                config.serverId(), hostPort(), config.dataDir(), Zxid.str(tree.lastZxid()), tree.sessions().size(),
                tree.nodeCount());
        if (adminAddress != null) {
            log.info("zkr server {} admin endpoint on http://{}/ (metrics at /metrics)", config.serverId(),
                    hostPort(adminAddress));
        }
    }

    /** The metrics of a server with an admin endpoint, hooked to its log, snapshotter and replica driver. */
    private static ServerMetrics newMetrics(Core core, TxnLog txnLog, Snapshotter snapshotter,
                                            ReplicaDriver driver, ServerMetrics.Outstanding outstanding) {
        ServerMetrics m = new ServerMetrics(core::elections, core::leaderChanges, outstanding);
        txnLog.observeFsyncs(m::fsynced);
        snapshotter.onWritten(m::snapshotWritten);
        if (driver != null) {
            driver.timeCommits(m::committed);
        }
        return m;
    }

    private static void startPeers(PeerTransport peers) {
        try {
            peers.start();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while binding the peer port", e);
        } catch (Exception e) { // Netty rethrows a BindException unchecked
            throw new IllegalStateException("cannot bind the peer port: " + e.getMessage(), e);
        }
    }

    /** The peer transport's settings: the member lines' peer addresses, a frame limit above the largest txn. */
    private static PeerConfig peerConfig(ServerConfig config) {
        Map<Integer, InetSocketAddress> members = new TreeMap<>();
        config.members().forEach(m -> members.put(m.id(), m.peerAddress()));
        return PeerConfig.of(config.serverId(), members).withEnsembleId(Assembler.ensembleIdOf(config))
                .withMaxFrameSize(Math.max(PeerConfig.DEFAULT_MAX_FRAME_SIZE, config.maxTxnBytes() + (64 << 10)));
    }

    /** This server's role as of its last round. */
    public Role role() {
        return core.role().role();
    }

    /** True if this server leads and may sequence writes (its EPOCH record committed). */
    public boolean isLeading() {
        RoleInfo r = core.role();
        return r.role() == Role.LEADER && r.inService();
    }

    /** The id of the leader this server knows of (its own when it leads), -1 if none. */
    public int leaderId() {
        return core.role().leaderId();
    }

    /** The current epoch (the high half of the zxids its leader hands out). */
    public long epoch() {
        return core.role().epoch();
    }

    // ---- membership (docs/membership.md) -------------------------------------------------------------------------

    /**
     * Asks this server, which must lead in service, for a membership change: add a server (a learner, promoted to
     * voter once it caught up), add an observer, promote an observer, or remove a member (this leader included: it
     * hands over once the removal commits). Completes with the record's zxid once the change committed and this
     * server applied it; exceptionally with {@link IllegalStateException} if this server does not lead in service,
     * another change is pending or a learner has not caught up (ask again), or if it stopped leading before the change
     * was applied (then the change may or may not have committed: read {@link #membership()}), and with
     * {@link IllegalArgumentException} if the change does not apply (a member added twice, an id used before, the
     * last voter removed).
     */
    public CompletableFuture<Long> changeMembership(dev.zkr.client.MembershipChange change) {
        return core.changeMembership(change);
    }

    /**
     * Completes with the membership this server applied last (committed) once it satisfies {@code wanted}; for a
     * server that joins, once it caught up with the record that satisfies it.
     */
    public CompletableFuture<Txn.Membership> awaitMembership(java.util.function.Predicate<Txn.Membership> wanted) {
        return core.awaitMembership(wanted, configuredMembership());
    }

    /**
     * The membership in force on this server: the last record in its log (committed or not), else its configured
     * member lines; null for a standalone server.
     */
    public Txn.Membership membership() {
        if (!config.isEnsemble()) {
            return null;
        }
        Txn.Membership m = core.membership();
        return m != null ? m : configuredMembership();
    }

    /** The ensemble id this server's peers check (a server that joins is configured with it: {@code ensembleId}). */
    public long ensembleId() {
        return Assembler.ensembleIdOf(config);
    }

    private Txn.Membership configuredMembership() {
        return Assembler.configuredMembership(config);
    }

    /** Snapshots this server installed from a leader (SNAP syncs) since it started: for tests and metrics. */
    public int snapshotInstalls() {
        return driver == null ? 0 : driver.installs();
    }

    /** Snapshot chunks this server ignored as stale copies of a chunk it asked for twice (tests). */
    public int snapshotStaleChunks() {
        return driver == null ? 0 : driver.staleChunks();
    }

    /** Snapshot transfers this server gave up since it started (its sender stopped leading or went silent). */
    public int snapshotInstallsAborted() {
        return driver == null ? 0 : driver.abortedInstalls();
    }

    /** Whether this server is fetching a snapshot from its leader (a SNAP sync) right now: for tests. */
    public boolean installingSnapshot() {
        return driver != null && driver.installing();
    }

    /** This server's id ({@code server.N}; 1 for a standalone server unless configured). */
    public int serverId() {
        return config.serverId();
    }

    /**
     * The filter on this server's peer links, for tests: partitions drop messages silently both ways while the
     * sockets stay up, as a real partition does. A standalone server has no peers; its filter does nothing.
     */
    public LinkFilter linkFilter() {
        return linkFilter;
    }

    /** The client port (tests in its package read its budgets through {@code ServerFixture.clientPort}). */
    NettyServer connections() {
        return netty;
    }

    /**
     * Waits until the pipeline may take clients: a replica's EPOCH record is durable, so its recovered tail is
     * committed and applied before the first client can read.
     */
    private static void awaitServing(Core core) {
        try {
            core.serving().get(60, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while the server recovered", e);
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            throw new dev.zkr.storage.StorageException("the server could not start serving: " + e, e);
        }
    }

    /**
     * Recovers the data directory and starts serving.
     *
     * @throws IllegalStateException if the port cannot be bound
     * @throws dev.zkr.storage.StorageException if the data directory cannot be recovered
     */
    public static ZkServer start(ServerConfig config) {
        return new ZkServer(config, new LinkFilter());
    }

    /**
     * As {@link #start(ServerConfig)}, with the peer links filtered by {@code linkFilter} (tests: one filter shared
     * by every server of an in-JVM ensemble injects partitions).
     */
    public static ZkServer start(ServerConfig config, LinkFilter linkFilter) {
        return new ZkServer(config, java.util.Objects.requireNonNull(linkFilter, "linkFilter"));
    }

    /** The replies the tree keeps for the session's writes, to answer them if sent again (tests; any thread). */
    int savedReplyCount(long sessionId) {
        return tree.savedReplyCount(sessionId);
    }

    /** The port the server listens on (the actual one when configured with port 0). */
    public int port() {
        return address.getPort();
    }

    /** The address the server listens on. */
    public InetSocketAddress address() {
        return address;
    }

    /** {@code host:port} for a client connect string. */
    public String connectString() {
        return hostPort();
    }

    private String hostPort() {
        return hostPort(address);
    }

    private static String hostPort(InetSocketAddress address) {
        String host = address.getAddress().getHostAddress();
        return (host.contains(":") ? "[" + host + "]" : host) + ":" + address.getPort();
    }

    /** The admin endpoint's port (the actual one when configured with 0), or -1 if it is off. */
    public int adminPort() {
        return adminAddress == null ? -1 : adminAddress.getPort();
    }

    /** The admin endpoint's base URL ({@code http://host:port/}), or null if it is off. */
    public String adminUrl() {
        return adminAddress == null ? null : "http://" + hostPort(adminAddress) + "/";
    }

    public ServerConfig config() {
        return config;
    }

    /** The zxid of the last applied transaction (a snapshot of a value that keeps moving). */
    public long lastZxid() {
        return tree.lastZxid();
    }

    /** The zxid of the last txn known to be fsynced (for tests). */
    long durableZxid() {
        return txnLog.durableZxid();
    }

    /** Client connections open now (accepted and counted against the connection limits). */
    public int clientConnections() {
        return netty.open();
    }

    /** Subjects of the verified client certificates of the open client connections (test access). */
    List<String> clientCertificateSubjects() {
        return netty.clientCertificateSubjects();
    }

    /** True while the server serves (not closed, not killed, log healthy). */
    public boolean isRunning() {
        synchronized (lifecycle) {
            return !closed && !core.failed();
        }
    }

    /**
     * Expires a session now, through the normal expiry path (a CloseSession txn: its ephemerals are deleted, their
     * watches fire, its connection is closed). Returns false if the session is unknown or already closing.
     */
    public boolean expireSession(long sessionId) {
        CompletableFuture<Boolean> done = new CompletableFuture<>();
        core.execute(() -> done.complete(core.expireNow(sessionId)));
        try {
            return done.get(10, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException("server did not handle expireSession: " + e, e);
        }
    }

    /**
     * Stops cleanly: stops accepting, finishes the batch in flight (logged, fsynced, applied, answered), closes the
     * connections, the log and the snapshotter. Idempotent.
     */
    @Override
    public void close() {
        synchronized (lifecycle) {
            if (closed) {
                return;
            }
            closed = true;
        }
        core.resume();
        if (admin != null) {
            admin.close();
        }
        netty.stopAccepting();
        if (peers != null && isLeading()) {
            handOverLeadership();
        }
        core.stop(peers == null ? 10_000 : Math.max(1_000, 2 * config.electionTimeout().toMillis()));
        if (peers != null) {
            peers.close();
        }
        netty.shutdown(true);
        snapshotter.close();
        txnLog.close();
        log.info("zkr server on {} stopped ({} txns logged with {} fsyncs since start)", hostPort(),
                txnLog.recordsWritten(), txnLog.fsyncCount());
    }

    /**
     * A clean stop of a leader first hands leadership to the most up-to-date follower (so a planned restart has no
     * write gap); waits up to the election timeout for another server to lead.
     */
    private void handOverLeadership() {
        core.execute(driver::transferLeadership);
        long deadline = System.nanoTime() + config.electionTimeout().toNanos() * 2;
        while (System.nanoTime() < deadline) {
            RoleInfo r = core.role();
            if (r.role() != Role.LEADER) {
                return;
            }
            java.util.concurrent.locks.LockSupport.parkNanos(1_000_000);
        }
        log.info("server {}: no follower took over leadership within {} ms; stopping anyway", config.serverId(),
                config.electionTimeout().toMillis() * 2);
    }

    /**
     * Freezes this server as SIGSTOP would, until {@link #resume()} (for fault tests, such as zk-testkit's
     * {@code TestEnsemble.pause}): nothing it receives from clients or peers is handled, nothing is answered, no
     * timer fires, its sockets stay open. Closing or killing it resumes it first.
     */
    public void pause() {
        core.pause();
    }

    /** Lets a {@link #pause() paused} server go on: it handles at once what it received meanwhile. */
    public void resume() {
        core.resume();
    }

    /**
     * Stops abruptly, as close to a crash as a server inside a JVM gets: the pipeline stops at once (nothing more is
     * applied or answered), connections are dropped without a goodbye, files are closed. Idempotent.
     */
    public void kill() {
        synchronized (lifecycle) {
            if (closed) {
                return;
            }
            closed = true;
        }
        if (admin != null) {
            admin.close();
        }
        core.kill();
        if (peers != null) {
            peers.close();
        }
        netty.shutdown(false);
        snapshotter.close();
        txnLog.close();
        log.info("zkr server on {} killed", hostPort());
    }
}
