package dev.zkr.server;

import dev.zkr.server.round.Core;
import dev.zkr.server.round.LogStage;
import dev.zkr.server.round.PeerLink;
import dev.zkr.server.round.Replication;
import dev.zkr.server.round.TxnClock;
import dev.zkr.server.replication.QuorumOfOne;
import dev.zkr.server.replication.Members;
import dev.zkr.server.replication.ReplicaDriver;
import dev.zkr.server.replication.DrivenLogView;
import dev.zkr.consensus.Meta;
import dev.zkr.consensus.Replica;
import dev.zkr.consensus.ReplicaConfig;
import dev.zkr.consensus.Zxid;
import dev.zkr.server.peer.PeerConfig;
import dev.zkr.session.SessionTable;
import dev.zkr.storage.ConsensusMeta;
import dev.zkr.storage.ConsensusMetaException;
import dev.zkr.storage.LogReader;
import dev.zkr.storage.LogRecord;
import dev.zkr.storage.SnapshotStore;
import dev.zkr.storage.Snapshotter;
import dev.zkr.storage.TxnLog;
import dev.zkr.tree.DataTree;
import dev.zkr.tree.Txn;
import dev.zkr.tree.TxnCodec;
import dev.zkr.tree.WatchTable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.function.LongSupplier;

/**
 * Wires a server's parts — the round ({@link Core#assemble}), its {@link Replication} and the replica's view of the
 * log — so that servers differ in how the parts are put together, not in the parts (ZooKeeper's roles each build
 * their own processor chain). Two assemblies: {@link #replica}, a consensus replica driven by a
 * {@link ReplicaDriver} — a member of an ensemble, or a standalone server as an ensemble of one (the default), the
 * same code path — and {@link #standalone}, {@link QuorumOfOne}, the standalone fast path kept for comparison,
 * chosen with {@code -Dzkr.server.quorum=one}. A member's role (leader, follower, candidate) is the replica's to
 * decide at run time, not the assembly's.
 */
final class Assembler {

    private static final Logger log = LoggerFactory.getLogger(Assembler.class);

    /**
     * An assembled pipeline: the core that drives it, its replica driver (null for {@link QuorumOfOne}), its watch
     * table (read by the admin endpoint inside rounds).
     */
    record Parts(Core core, ReplicaDriver driver, WatchTable watches) {
    }

    /**
     * The epoch of a {@link QuorumOfOne} server's zxids. It is the same on every start (so a restart continues the
     * counter); zxids written before epochs existed are epoch 0, below it.
     */
    static final long STANDALONE_EPOCH = 1;

    /** The system property choosing the standalone assembly: {@code replica} (default) or {@code one}. */
    static final String QUORUM_PROPERTY = "zkr.server.quorum";

    private Assembler() {
    }

    /** True unless {@code -Dzkr.server.quorum=one} asks for the {@link QuorumOfOne} fast path. */
    static boolean standaloneUsesReplica() {
        return !"one".equals(System.getProperty(QUORUM_PROPERTY, "replica"));
    }

    /**
     * A standalone server (an ensemble of one) without a replica: commits on local durability
     * ({@link QuorumOfOne}); recovery replays every durable record.
     *
     * @param tree        the recovered tree
     * @param lastZxid    the last zxid in the tree or the log: the next txn gets a higher one
     * @param sessions    the session table, its committed sessions restored
     * @param txnLog      the open log
     * @param snapshotter the snapshotter to tell of applied txns
     */
    static Parts standalone(ServerConfig config, DataTree tree, long lastZxid, SessionTable sessions, TxnLog txnLog,
                            Snapshotter snapshotter, LongSupplier wallClock) {
        LogStage logStage = new LogStage(txnLog);
        return assemble(config, tree, sessions, snapshotter, logStage, new QuorumOfOne(logStage, tree.lastZxid(),
                config.serverId(), STANDALONE_EPOCH), STANDALONE_EPOCH, lastZxid, PeerLink.NONE, null,
                new TxnClock(wallClock, 0));
    }

    private static long newest(SnapshotStore snapshots) {
        List<Long> zxids = snapshots.list();
        return zxids.isEmpty() ? 0 : zxids.get(0);
    }

    /**
     * A server as a consensus replica: standalone (one member, {@code peers} {@link PeerLink#NONE}) or a member of
     * the ensemble {@link ServerConfig#members()}, talking to its peers through {@code peers}. A member starts as a
     * follower without a leader; writes are sequenced only once it leads in service (its EPOCH record applied).
     * Txn times (the Prep stage's and the EPOCH records') come from {@code wallClock} through one {@link TxnClock}
     * that starts at the last logged record's time, so they never go back.
     */
    static Parts replica(ServerConfig config, DataTree tree, List<TxnCodec.Entry> tail, SessionTable sessions,
                         TxnLog txnLog, SnapshotStore snapshots, long snapshotZxid, Snapshotter snapshotter,
                         PeerLink peers, LongSupplier wallClock) {
        int id = config.serverId();
        boolean ensemble = config.isEnsemble();
        // a server that joins a running ensemble is not a voter of the starting membership (docs/membership.md)
        List<Integer> members = ensemble ? config.members().stream().filter(m -> !m.observer())
                .map(ServerConfig.Member::id).filter(m -> !(config.join() && m == id)).toList() : List.of(id);
        long ensembleId = ensembleIdOf(config);
        Path dataDir = config.dataDir();
        Members book = ensemble ? configuredMembers(config) : null;
        DataTree.AppliedMembership recorded = tree.membership();
        if (book != null && recorded != null) {
            book.learn(recorded.membership());
        }
        // the newest snapshot file is what a follower behind the log's start is sent
        // (docs/replication.md, SNAP transfer)
        DrivenLogView view = ensemble
                ? DrivenLogView.of(txnLog, () -> Math.max(snapshotZxid, newest(snapshots)), true, book,
                        recorded != null ? Members.toConsensus(recorded.membership()) : staticObservers(config))
                : DrivenLogView.of(txnLog, () -> Math.max(snapshotZxid, newest(snapshots)), false);
        Meta meta = loadMeta(dataDir, view, config, ensembleId);
        int electionTicks = ticks(config.electionTimeout().toMillis());
        int heartbeatTicks = Math.min(electionTicks - 1, ticks(config.heartbeatInterval().toMillis()));
        ReplicaConfig rc = new ReplicaConfig(id, members, electionTicks, heartbeatTicks, 2,
                ensemble ? new SplittableRandom() : new SplittableRandom(id));
        Replica replica = new Replica(rc, view, meta);
        LogStage logStage = new LogStage(txnLog);
        TxnClock txnClock = new TxnClock(wallClock, Math.max(TxnClock.lastTime(view), tree.lastTxnTime()));
        ReplicaDriver driver = new ReplicaDriver(replica, view, logStage, txnLog,
                m -> new ConsensusMeta(m.acceptedEpoch(), m.votedFor(), ensembleId, id).store(dataDir),
                tail, ensemble ? peers : PeerLink.NONE, txnClock::next, electionTicks,
                new ReplicaDriver.Snapshots(snapshots, txnLog), book);
        long epoch = driver.epoch();
        if (ensemble) {
            log.info("server {} of {} starts as a follower (accepted epoch {}; log ends at {}, {} record(s) not known "
                    + "committed)", id, members, meta.acceptedEpoch(), Zxid.str(view.lastZxid()), tail.size());
            return assemble(config, tree, sessions, snapshotter, logStage, driver, -1, Zxid.of(epoch, 0), peers,
                    driver, txnClock);
        }
        log.info("server {} leads epoch {} (accepted epoch was {}; log ends at {}, {} record(s) to commit)", id,
                epoch, meta.acceptedEpoch(), Zxid.str(view.lastZxid()), tail.size());
        return assemble(config, tree, sessions, snapshotter, logStage, driver, epoch, Zxid.of(epoch, 0),
                PeerLink.NONE, driver, txnClock);
    }

    /**
     * The ensemble id every peer's Hello and this server's consensus.meta carry, one definition for every server
     * ({@link PeerConfig#ensembleIdOf}, a SHA-256 digest): of the member lines, or of the ensemble's name and the
     * member ids when it has a name ({@link ServerConfig#ensembleName()}); a standalone server's is of its id alone.
     */
    static long ensembleIdOf(ServerConfig config) {
        if (config.ensembleId().isPresent()) {
            return config.ensembleId().getAsLong();
        }
        if (!config.isEnsemble()) {
            return PeerConfig.standaloneEnsembleId(config.serverId());
        }
        Map<Integer, String> lines = new TreeMap<>();
        config.members().forEach(m -> lines.put(m.id(), config.ensembleName().map(n -> "ensemble " + n)
                .orElse(m.line())));
        return PeerConfig.ensembleIdOf(lines);
    }

    /**
     * True if {@code id} is the ensemble id of server {@code serverId} running standalone: today's, or the one
     * standalone servers stored before the ids had one definition ({@code List.of(serverId).hashCode()}).
     */
    static boolean isStandaloneId(long id, int serverId) {
        return id == PeerConfig.standaloneEnsembleId(serverId) || id == List.of(serverId).hashCode();
    }

    private static Members configuredMembers(ServerConfig config) {
        return new Members(configuredMembership(config).members());
    }

    /**
     * The starting membership of an ensemble whose lines name observers (zoo.cfg's {@code :observer}): the voters
     * and the observers (learners never promoted); null when they name none (the static voters are the membership).
     */
    private static dev.zkr.consensus.Membership staticObservers(ServerConfig config) {
        if (config.join() || config.members().stream().noneMatch(ServerConfig.Member::observer)) {
            return null;
        }
        return Members.toConsensus(configuredMembership(config));
    }

    /** The member lines as a membership: voters, this server a learner when it joins; null when standalone. */
    static Txn.Membership configuredMembership(ServerConfig config) {
        if (!config.isEnsemble()) {
            return null;
        }
        return new Txn.Membership(config.members().stream().map(m -> new dev.zkr.client.EnsembleMember(m.id(),
                m.observer() ? dev.zkr.client.EnsembleMember.Role.OBSERVER
                        : config.join() && m.id() == config.serverId() ? dev.zkr.client.EnsembleMember.Role.LEARNER
                        : dev.zkr.client.EnsembleMember.Role.VOTER, m.host(), m.peerPort(), m.clientPort())).toList());
    }

    private static int ticks(long millis) {
        return (int) Math.max(1, millis / ReplicaDriver.TICK_MS);
    }

    /** The records of {@code txnLog} after {@code appliedZxid}, decoded, in zxid order. */
    static List<TxnCodec.Entry> readTail(TxnLog txnLog, long appliedZxid) {
        List<TxnCodec.Entry> tail = new ArrayList<>();
        try (LogReader records = txnLog.read(appliedZxid)) {
            while (records.hasNext()) {
                LogRecord r = records.next();
                tail.add(TxnCodec.decode(r.payload()));
            }
        }
        return tail;
    }

    /**
     * The stored vote state, by the one startup rule ({@link ConsensusMeta#loadAtStart}: an ensemble member refuses a
     * missing meta next to a non-empty log, a standalone server starts from its last record's epoch). A member also
     * refuses a data directory written by a member of another ensemble (other member lines); a standalone server's
     * directory may join an ensemble.
     */
    private static Meta loadMeta(Path dataDir, DrivenLogView view, ServerConfig config, long ensembleId) {
        boolean fresh = view.lastZxid() == 0 && view.snapshotZxid() == 0;
        Optional<ConsensusMeta> stored = ConsensusMeta.loadAtStart(dataDir, fresh, !config.isEnsemble());
        if (stored.isEmpty()) {
            if (!fresh) {
                log.info("no {} in {}: a standalone data directory, accepted epoch {} from its last record",
                        ConsensusMeta.FILE, dataDir, Zxid.epoch(view.lastZxid()));
            }
            return new Meta(config.isEnsemble() ? 0 : Zxid.epoch(view.lastZxid()), -1);
        }
        long id = stored.get().ensembleId();
        if (config.isEnsemble() && id != ensembleId && !isStandaloneId(id, config.serverId())) {
            throw new ConsensusMetaException(dataDir.resolve(ConsensusMeta.FILE) + " was written by a member of "
                    + "another ensemble (id " + Long.toHexString(id) + "; these member lines give "
                    + Long.toHexString(ensembleId) + "): refusing to start (fix the server.N lines, or wipe the data "
                    + "directory to join as a new member)");
        }
        return new Meta(stored.get().acceptedEpoch(), (int) stored.get().votedFor());
    }

    private static Parts assemble(ServerConfig config, DataTree tree, SessionTable sessions, Snapshotter snapshotter,
                                  LogStage logStage, Replication replication, long epoch, long lastZxid,
                                  PeerLink peers, ReplicaDriver driver, TxnClock txnClock) {
        WatchTable watches = new WatchTable();
        Core core = Core.assemble(config, tree, sessions, watches, snapshotter, logStage, replication, epoch,
                lastZxid, peers, txnClock, configuredMembership(config));
        return new Parts(core, driver, watches);
    }
}
