package dev.zkr.server;

import dev.zkr.session.SessionTable;
import dev.zkr.storage.LogConfig;
import dev.zkr.storage.Recovery;
import dev.zkr.storage.SnapshotStore;
import dev.zkr.storage.Snapshotter;
import dev.zkr.storage.TxnLog;
import dev.zkr.tree.DataTree;
import dev.zkr.tree.TxnCodec;
import dev.zkr.consensus.Zxid;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.security.SecureRandom;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * A standalone zkr server (an ensemble of one): recovers its data directory, then serves clients on its port until
 * {@link #close()}. Start with {@link #start(ServerConfig)}.
 *
 * <p>Data directory layout: {@code log/} (transaction log segments) and {@code snapshots/}.
 */
public final class ZkServer implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(ZkServer.class);

    private final ServerConfig config;
    private final TxnLog txnLog;
    private final Snapshotter snapshotter;
    private final DataTree tree;
    private final SessionGate gate;
    private final Core core;
    private final NettyServer netty;
    private final InetSocketAddress address;
    private final Object lifecycle = new Object();
    private boolean closed;

    private ZkServer(ServerConfig config) {
        this.config = config;
        try {
            Files.createDirectories(config.dataDir());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create data directory " + config.dataDir(), e);
        }
        SnapshotStore snapshots = SnapshotStore.open(config.dataDir().resolve("snapshots"));
        this.txnLog = TxnLog.open(config.dataDir().resolve("log"),
                LogConfig.defaults().withRetainTxns(config.logRetentionTxns()));
        boolean replica = Assembler.standaloneUsesReplica();
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
        sessions.restore(tree.sessions().values(), now);
        this.snapshotter = new Snapshotter(snapshots, txnLog,
                new Snapshotter.Policy(config.snapshotInterval(), 0, 3), zxid -> tree::writeSnapshot);
        Assembler.Parts parts;
        try {
            parts = replica
                    ? Assembler.standaloneReplica(config, tree, tail, sessions, txnLog,
                            Math.max(0, recovered.snapshotZxid()), snapshotter)
                    : Assembler.standalone(config, tree, lastZxid, sessions, txnLog, snapshotter);
        } catch (RuntimeException e) {
            snapshotter.close();
            txnLog.close();
            throw e;
        }
        this.gate = parts.gate();
        this.core = parts.core();
        this.netty = new NettyServer(new ServerChannelInitializer(config, core));
        // a failed log or pipeline ends the server: clients see the connection drop and go elsewhere
        core.onFatal(() -> new Thread(this::kill, "zkr-fatal-stop").start());
        core.start();
        try {
            awaitServing(core);
            this.address = netty.bind(new InetSocketAddress(config.bindAddress(), config.port()));
        } catch (RuntimeException e) {
            core.kill();
            netty.shutdown(false);
            snapshotter.close();
            txnLog.close();
            throw e;
        }
        log.info("zkr server {} listening on {} (data dir {}, last zxid {}, {} sessions restored, {} nodes)",
                config.serverId(), hostPort(), config.dataDir(), Zxid.str(tree.lastZxid()), tree.sessions().size(),
                tree.nodeCount());
    }

    /** The client connections' shared state: budgets and problem log (tests read its counters). */
    ServerChannelInitializer connections() {
        return netty.initializer();
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
        return new ZkServer(config);
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
        String host = address.getAddress().getHostAddress();
        return (host.contains(":") ? "[" + host + "]" : host) + ":" + address.getPort();
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
        core.execute(() -> done.complete(gate.expireNow(sessionId, core)));
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
        netty.stopAccepting();
        core.stop(10_000);
        netty.shutdown(true);
        snapshotter.close();
        txnLog.close();
        log.info("zkr server on {} stopped ({} txns logged with {} fsyncs since start)", hostPort(),
                txnLog.recordsWritten(), txnLog.fsyncCount());
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
        core.kill();
        netty.shutdown(false);
        snapshotter.close();
        txnLog.close();
        log.info("zkr server on {} killed", hostPort());
    }
}
