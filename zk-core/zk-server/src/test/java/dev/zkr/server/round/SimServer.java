package dev.zkr.server.round;

import dev.zkr.server.ServerConfig;
import dev.zkr.server.replication.Members;
import dev.zkr.server.replication.ReplicaDriver;
import dev.zkr.consensus.Entry;
import dev.zkr.consensus.Meta;
import dev.zkr.consensus.Replica;
import dev.zkr.consensus.ReplicaConfig;
import dev.zkr.consensus.Zxid;
import dev.zkr.session.SessionTable;
import dev.zkr.tree.DataTree;
import dev.zkr.tree.TxnCodec;
import dev.zkr.tree.TxnPreparer;
import dev.zkr.tree.WatchTable;
import dev.zkr.wire.Message;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * One simulated server: its {@link SimLog} and consensus metadata outlive its incarnations; each incarnation is
 * the real round logic — {@link Pipeline} with the real Session, Prep, Apply, Read stages, Housekeeping and a
 * single-member {@link Replica} — assembled as {@code Assembler} does, over the sim log, recovered from the log's
 * durable records as {@code ZkServer} recovers (the tree up to the durable commit mark, P7; the rest committed by
 * the new EPOCH record). Every round is run by the simulator, at simulated time.
 */
final class SimServer {

    /** Test-only ways to break the server's read path (they must be caught by the history checks). */
    enum ReadBug {
        NONE,
        /** Plain reads are answered at once, ahead of the session's own writes still in flight. */
        READS_JUMP_THE_QUEUE,
        /** Reads (synced or not) are answered from a copy of the tree that lags some txns behind. */
        STALE_READS
    }

    /** One incarnation's parts. */
    final class Incarnation {
        final int number;
        final DataTree tree;
        final Pipeline pipeline;
        final ReadStage reads;
        final ApplyStage apply;
        final ReplicaDriver stage;
        final Replica replica;
        final Outbox outbox = new Outbox();
        /** Membership changes and their waiters (a run with membership changes), or null. */
        final MembershipChanges memberships;
        /** STALE_READS: the lagging tree and how far it got in the log. */
        DataTree staleTree = new DataTree();
        ReadStage staleReads;

        Incarnation(int number, long now) {
            this.number = number;
            List<Entry> durable = log.durableEntries();
            long mark = log.durableCommitMark();
            DataTree t = new DataTree();
            long snapshot = 0;
            if (snapshots != null) { // as ZkServer: the newest valid snapshot, then the log after it
                var loaded = snapshots.loadNewestValid((z, in) -> DataTree.readSnapshot(in));
                if (loaded.isPresent()) {
                    t = loaded.get().state();
                    snapshot = loaded.get().zxid();
                    if (faultBug == FaultBug.FORGET_WRITES_ON_RESTART) {
                        dev.zkr.tree.TreeInvariants.forgetSessionWrites(t);
                    }
                }
            }
            List<TxnCodec.Entry> tail = new ArrayList<>();
            for (Entry e : durable) {
                if (e.zxid() <= snapshot) {
                    continue;
                }
                TxnCodec.Entry te = TxnCodec.decode(e.payload());
                if (e.zxid() <= mark) {
                    t.apply(te.header(), faultBug == FaultBug.SET_ACL_REPLAY_KEEPS_AVERSION
                            ? keepAversion(t, te.txn()) : te.txn());
                } else {
                    tail.add(te);
                }
            }
            this.tree = t;
            SessionTable sessions = new SessionTable(new SessionTable.Config(id, config.minSessionTimeoutMs(),
                    config.maxSessionTimeoutMs()), START_MILLIS + now, secret);
            sessions.restore(tree.sessions().values(), roundTime(now));
            SimLogView view = new SimLogView(log, SimServer.this::newestSnapshot);
            boolean ensemble = members.size() > 1 || changes; // a spare may join an ensemble down to one voter
            // membership changes: the address book and the recovered tree's membership, as Assembler reads them
            dev.zkr.tree.Txn.Membership recorded = t.membership() == null ? null : t.membership().membership();
            Members book = null;
            if (changes) {
                book = new Members(configured());
                if (recorded != null) {
                    book.learn(recorded);
                }
                view.members(book, recorded == null ? null : Members.toConsensus(recorded),
                        memberBug == MemberBug.SNAP_FORGETS_MEMBERSHIP);
                view.onAppended = membershipAppended;
            }
            int electionTicks = (int) Math.max(1, ELECTION_MS / ReplicaDriver.TICK_MS);
            int heartbeatTicks = Math.min(electionTicks - 1, (int) Math.max(1, HEARTBEAT_MS / ReplicaDriver.TICK_MS));
            ReplicaConfig replicaConfig = new ReplicaConfig(id, members, electionTicks, heartbeatTicks, 2,
                    new SplittableRandom(sim.seed * 1_000_003L + id * 1_009L + number));
            this.replica = memberBug == MemberBug.REMOVED_LEADER_KEEPS_LEADING
                    ? dev.zkr.consensus.MutatedReplicas.of(replicaConfig, view, meta, "removedLeaderKeepsLeading")
                    : new Replica(replicaConfig, view, meta);
            LogStage logStage = new LogStage(log);
            PeerLink peers = ensemble ? (to, m) -> sim.peerSend(id, to, m) : PeerLink.NONE;
            TxnClock txnClock = new TxnClock(SimServer.this::wallClock,
                    Math.max(TxnClock.lastTime(view), t.lastTxnTime()));
            this.stage = new ReplicaDriver(replica, view, logStage, log, m -> {
                if (m.acceptedEpoch() < meta.acceptedEpoch()) {
                    throw new ServerSim.Violation("s" + id + ": accepted epoch goes back " + meta + " -> " + m);
                }
                meta = m;
            }, tail, peers, faultBug == FaultBug.EPOCH_ON_WALL_CLOCK ? SimServer.this::wallClock : txnClock::next,
                    electionTicks, snapshots == null ? null : new ReplicaDriver.Snapshots(snapshots, log), book);
            long epoch = stage.epoch();
            WatchTable watches = new WatchTable();
            SessionGate gate = new SessionGate(config, sessions, tree, watches);
            dev.zkr.tree.SystemNodes system = Core.systemNodes(config, 0);
            PrepStage prep = new PrepStage(new TxnPreparer(tree, config.maxDataSize(),
                    config.maxEphemeralsPerSession(), config.maxTxnBytes(), dev.zkr.auth.Authorizer.defaults(),
                    system), txnClock, ensemble ? -1 : epoch, Zxid.of(epoch, 0), ensemble);
            this.apply = new ApplyStage(tree, prep, watches, gate);
            this.reads = new ReadStage(tree, watches, apply, dev.zkr.auth.Authorizer.defaults(), system);
            this.memberships = changes ? new MembershipChanges(stage, recorded) : null;
            Housekeeping housekeeping = new Housekeeping(config, tree, gate, null, memberships);
            this.pipeline = new Pipeline(tree, gate, reads, prep, logStage, stage, apply, housekeeping, outbox, peers,
                    id, ensemble, ELECTION_MS, HEARTBEAT_MS);
            this.staleReads = new ReadStage(staleTree, new WatchTable(), apply);
            logStage.listen(z -> durable(this, z), e -> sim.logFailed(SimServer.this, number, e)); // fail-stop
        }

        /** Set once the server first served (ZkServer binds its client port then). */
        boolean served;
        /** SNAP installs of this incarnation already traced. */
        int installsSeen;
        /** Per session: when this incarnation last received a request of it from its own client connection. */
        final java.util.Map<Long, Long> heard = new java.util.HashMap<>();
        /** Batched rounds: peer messages not yet handed to the pipeline (a round to take them is due meanwhile). */
        final java.util.ArrayDeque<PeerIn> inbox = new java.util.ArrayDeque<>();
    }

    /** The ensemble's election timeout and heartbeat interval (simulated millis). */
    static final long ELECTION_MS = 150;
    static final long HEARTBEAT_MS = 30;

    final int id;
    final List<Integer> members;
    final SimLog log;
    private final ServerConfig config;
    private final byte[] secret;
    private final ServerSim sim;
    private final ReadBug readBug;
    private Meta meta = Meta.FRESH;
    /** The running incarnation, or null while the server is down. */
    Incarnation current;
    private int incarnations;
    private long tickAt = Long.MAX_VALUE;
    long rounds;

    /** Session ids count from this "wall clock" plus simulated time, so ids differ across restarts. */
    private static final long START_MILLIS = 1_000_000;
    /**
     * The wall clock's distance from the simulated time, changed by clock jumps. The wall clock gives txn times
     * only; round time (ticks, session deadlines) is the simulated time itself, as a server's round clock is
     * monotonic ({@link Core#roundClock}) — unless {@link #faultBug} re-introduces the old bug.
     */
    private long clockOffset = 1_700_000_000_000L;
    /** Test-only bugs around the new faults (clocks, disks): each must be caught by the checks. */
    enum FaultBug {
        NONE,
        /** Rounds (timers, session deadlines, replica ticks) run on the wall clock, as Core's did. */
        ROUNDS_ON_WALL_CLOCK,
        /** An EPOCH record carries the raw wall clock, not max(clock, newest txn time), as ReplicaDriver's did. */
        EPOCH_ON_WALL_CLOCK,
        /** A full disk's failed write is reported durable and the server goes on (no fail-stop). */
        ACK_WHEN_DISK_FULL,
        /** Recovery from a torn record also cuts the valid record before it. */
        TORN_TAIL_CUT_TOO_FAR,
        /** The log purge ignores the snapshot: it drops every durable record, also those after the snapshot. */
        PURGE_PAST_SNAPSHOT,
        /**
         * Recovery replays a SET_ACL record's ACL but keeps the node's aversion (a replay that drops a field): needs
         * the ACL traffic ({@link ServerSim.Options#withAcls()}).
         */
        SET_ACL_REPLAY_KEEPS_AVERSION,
        /**
         * A restart from a snapshot forgets the session writes it holds (a loader that drops the exactly-once
         * section): needs the exactly-once clients ({@link ServerSim.Options#withResend()}).
         */
        FORGET_WRITES_ON_RESTART,
        /**
         * A SNAP install leaves the session writes behind (a {@code replaceWith} that does not take them): the tree
         * forgets them right after the round that installed the snapshot. Needs 3 or more servers.
         */
        FORGET_WRITES_ON_SNAP
    }

    /** SET_ACL_REPLAY_KEEPS_AVERSION: a SET_ACL txn as the buggy replay applies it to {@code t}. */
    private static dev.zkr.tree.Txn keepAversion(DataTree t, dev.zkr.tree.Txn txn) {
        if (txn instanceof dev.zkr.tree.Txn.SetAcl sa) {
            dev.zkr.client.NodeAcl now = t.getAcl(sa.path());
            return new dev.zkr.tree.Txn.SetAcl(sa.path(), sa.acls(),
                    now == null ? sa.aversion() : now.stat().aversion());
        }
        return txn;
    }

    FaultBug faultBug = FaultBug.NONE;

    /** Test-only membership bugs (runs with membership changes): each must be caught by the membership checks. */
    enum MemberBug {
        NONE,
        /** The consensus core's mutation: a leader whose removal committed keeps leading. */
        REMOVED_LEADER_KEEPS_LEADING,
        /** A SNAP install forgets the membership the snapshot records: the replica falls back to its static one. */
        SNAP_FORGETS_MEMBERSHIP
    }

    MemberBug memberBug = MemberBug.NONE;
    /** Batched rounds ({@link ServerSim.Options#withBatchedRounds()}): when each inbox round runs; null: off. */
    SplittableRandom batchRandom;
    /** Runs with membership changes: every record this server's replica hands to its log (set by the simulator). */
    java.util.function.Consumer<Entry> membershipAppended;
    /** The log carries membership records (a run with membership changes). */
    private final boolean changes;
    /** A spare server: it joins a running ensemble ({@code join=true}), its own line not a voter. */
    final boolean joins;
    /** The ensemble id a joining server is configured with (the simulator's peers do not check it). */
    static final long ENSEMBLE_ID = 0x5EED_0001L;

    /** The configured member lines as members: voters, this server a learner when it joins. */
    private List<dev.zkr.client.EnsembleMember> configured() {
        List<dev.zkr.client.EnsembleMember> out = new ArrayList<>();
        for (ServerConfig.Member m : config.members()) {
            out.add(new dev.zkr.client.EnsembleMember(m.id(), joins && m.id() == id
                    ? dev.zkr.client.EnsembleMember.Role.LEARNER : dev.zkr.client.EnsembleMember.Role.VOTER,
                    m.host(), m.peerPort(), m.clientPort()));
        }
        return out;
    }

    /** This server's wall clock: simulated time plus its offset. */
    long wallClock() {
        return sim.now() + clockOffset;
    }

    /** The wall clock jumps by {@code millis} (either way). */
    void jumpClock(long millis) {
        clockOffset += millis;
    }

    /** The time a round of this server runs at (simulated time; the wall clock under the test-only bug). */
    private long roundTime(long now) {
        return faultBug == FaultBug.ROUNDS_ON_WALL_CLOCK ? now + clockOffset : now;
    }

    SimServer(int id, List<Integer> members, ServerSim sim, SimLog log, ReadBug readBug) {
        this(id, members, sim, log, readBug, false);
    }

    /** As above; {@code ttlChecks}: look for expired TTL nodes every 100 ms (the config's default is a minute). */
    SimServer(int id, List<Integer> members, ServerSim sim, SimLog log, ReadBug readBug, boolean ttlChecks) {
        this(id, members, sim, log, readBug, ttlChecks, false, false);
    }

    /**
     * As above; {@code changes}: the log carries membership records and the leader makes changes
     * ({@link ServerSim.Options#withMembers()}); {@code joins}: a spare server joining a running ensemble whose
     * voters are {@code members} (its own line added, not a voter).
     */
    SimServer(int id, List<Integer> members, ServerSim sim, SimLog log, ReadBug readBug, boolean ttlChecks,
              boolean changes, boolean joins) {
        this.changes = changes;
        this.joins = joins;
        this.id = id;
        this.members = List.copyOf(members);
        this.sim = sim;
        this.log = log;
        this.readBug = readBug;
        this.secret = new byte[32];
        new SplittableRandom(sim.seed * 31 + id).nextBytes(secret);
        ServerConfig.Builder b = ServerConfig.builder(Path.of("/nonexistent/zkr-sim")).serverId(id)
                .tickTime(Duration.ofMillis(300)).electionTimeout(Duration.ofMillis(ELECTION_MS))
                .heartbeatInterval(Duration.ofMillis(HEARTBEAT_MS));
        if (ttlChecks) {
            b.containerCheckInterval(Duration.ofMillis(100));
        }
        if (members.size() > 1 || changes) {
            for (int m : members) {
                b.member(m, "127.0.0.1", 20_000 + m, 10_000 + m);
            }
            if (joins) {
                b.member(id, "127.0.0.1", 20_000 + id, 10_000 + id).join(true).ensembleId(ENSEMBLE_ID);
            }
        }
        this.config = b.build();
        log.onAppend = this::checkExpiry;
    }

    /**
     * A session expiry this server sequenced as leader must not come before the session's timeout ran out since
     * the server itself last heard from the session's client (a forward jump of a clock that rounds ran on expired
     * live sessions).
     */
    private void checkExpiry(TxnCodec.Entry e) {
        Incarnation inc = current;
        if (inc == null || !(e.txn() instanceof dev.zkr.tree.Txn.CloseSession)
                || e.header().xid() != dev.zkr.tree.TxnHeader.NO_XID
                || inc.replica.roleInfo().role() != dev.zkr.consensus.Role.LEADER) {
            return;
        }
        long sid = e.header().sessionId();
        Long at = inc.heard.get(sid);
        dev.zkr.tree.SessionInfo info = inc.tree.sessions().get(sid);
        if (at != null && info != null && sim.now() - at < info.timeoutMs()) {
            throw new ServerSim.Violation("s" + id + " expires session 0x" + Long.toHexString(sid) + " at "
                    + Zxid.str(e.header().zxid()) + ", " + (sim.now() - at) + " ms after its client's last request"
                    + " reached it (timeout " + info.timeoutMs() + " ms)");
        }
    }

    boolean up() {
        return current != null;
    }

    /** Asks this server for a membership change (runs a round); the future as {@code Core.changeMembership}'s. */
    java.util.concurrent.CompletableFuture<Long> changeMembership(dev.zkr.client.MembershipChange change, long now) {
        java.util.concurrent.CompletableFuture<Long> done = new java.util.concurrent.CompletableFuture<>();
        current.pipeline.changeMembership(change, done);
        round(now);
        return done;
    }

    /** The membership in force on this server (its log's last record), with roles; null without membership changes. */
    dev.zkr.tree.Txn.Membership membership() {
        return current.stage.membership();
    }

    /**
     * Seeds with snapshots: this server's snapshot files (outliving its incarnations, as its log does), in the
     * run's scratch directory. The real {@code SnapshotStore}, sender and receiver: SNAP goes through them.
     */
    dev.zkr.storage.SnapshotStore snapshots;
    /** SNAP installs of earlier incarnations. */
    private int pastInstalls;

    /** The newest snapshot's zxid as last listed (the checks ask after every event: no directory listing each time). */
    private long newestSnapshot = -1;

    /** The zxid of the newest snapshot on this server's disk (0 for none). */
    long newestSnapshot() {
        if (snapshots == null) {
            return 0;
        }
        if (newestSnapshot < 0) {
            List<Long> zxids = snapshots.list();
            newestSnapshot = zxids.isEmpty() ? 0 : zxids.get(0);
        }
        return newestSnapshot;
    }

    /** Snapshots installed from a leader (SNAP syncs), over every incarnation. */
    long duplicates() {
        return pastDuplicates + (current == null ? 0 : current.pipeline.duplicatesFound());
    }

    private long pastDuplicates;

    int installs() {
        return pastInstalls + (current == null ? 0 : current.stage.installs());
    }

    /**
     * Takes a snapshot of the applied tree (as the Snapshotter does, here at once on the round thread), keeps the
     * newest two and purges the log up to {@code retain} records before it. Returns the snapshot's zxid, or 0.
     */
    long snapshotAndPurge(int retain) {
        DataTree t = current.tree;
        long z = t.lastZxid();
        if (z <= newestSnapshot()) {
            return 0;
        }
        snapshots.write(z, t::writeSnapshot);
        snapshots.retain(2);
        newestSnapshot = -1;
        List<Entry> durable = log.durableEntries();
        int at = -1;
        for (int i = 0; i < durable.size() && durable.get(i).zxid() <= z; i++) {
            at = i;
        }
        if (faultBug == FaultBug.PURGE_PAST_SNAPSHOT) {
            log.purgeUpTo(log.trueDurableZxid());
        } else if (at - retain >= 0) {
            log.purgeUpTo(durable.get(at - retain).zxid());
        }
        return z;
    }

    /** Accepts client connections: running and served once (ZkServer binds its client port only then). */
    boolean accepting() {
        return current != null && current.served;
    }

    /** The role as of the last round. */
    dev.zkr.consensus.RoleInfo role() {
        return current.pipeline.role();
    }

    /** Starts an incarnation from the log's durable state and runs its first round. */
    void start(long now) {
        current = new Incarnation(++incarnations, now);
        sim.trace("s" + id + " start #" + current.number + " log " + Zxid.str(log.trueDurableZxid()) + " mark "
                + Zxid.str(log.durableCommitMark()) + " tree " + Zxid.str(current.tree.lastZxid()) + " epoch "
                + current.stage.epoch() + (changes ? " membership " + current.replica.membership() + " committed "
                + current.replica.committedMembership() : ""));
        tickAt = Long.MAX_VALUE;
        round(now);
    }

    /** Kill -9: the incarnation is gone, the log keeps what was durable (and maybe some of the rest). */
    void crash() {
        if (current != null) {
            pastInstalls += current.stage.installs();
            pastDuplicates += current.pipeline.duplicatesFound();
        }
        current = null;
        tickAt = Long.MAX_VALUE;
        log.crash();
    }

    int incarnation() {
        return current == null ? -1 : current.number;
    }

    /** A message from a client connection (one socket read). */
    void request(SimConn c, Message m, long now) {
        Incarnation inc = current;
        long sid = m instanceof Message.ConnectRequest cr ? cr.sessionId() : c.connection.sessionId;
        if (sid != 0 && !c.connection.closed) {
            inc.heard.put(sid, now);
        }
        if (readBug == ReadBug.READS_JUMP_THE_QUEUE && m instanceof Message.GetDataRequest g
                && !c.connection.closed && c.connection.sessionId != 0) {
            inc.reads.serve(c.connection, g);
        } else if (readBug == ReadBug.STALE_READS && m instanceof Message.GetDataRequest g
                && !c.connection.closed && c.connection.sessionId != 0 && c.connection.queue.isEmpty()) {
            catchUpStaleTree(inc);
            inc.staleReads.serve(c.connection, g);
        } else {
            inc.pipeline.requests(List.of(new Core.Inbound(c.connection, m)), roundTime(now), true);
        }
        round(now);
    }

    /** The connection closed (client close, reset). */
    void disconnected(SimConn c, long now) {
        current.pipeline.disconnected(c.connection);
        round(now);
    }

    /** A due timer. */
    void tick(long now) {
        if (current != null && roundTime(now) >= current.pipeline.nextTick()) {
            round(now);
        } else if (current != null) {
            scheduleTick(now);
        }
    }

    private void durable(Incarnation inc, long zxid) {
        if (inc != current) {
            return;
        }
        if (sim.tracing()) {
            sim.trace("s" + id + " durable " + Zxid.str(zxid));
        }
        inc.pipeline.durable(zxid);
        round(sim.now());
    }

    /**
     * A message from a peer: a round of its own, or with batched rounds into the inbox, which a round 0-2 ms later
     * takes whole (with whatever else arrived meanwhile, from any peer), as one read of a peer link or a busy core
     * thread gathers several.
     */
    void peerMessage(int from, Object m, long now) {
        Incarnation inc = current;
        if (batchRandom == null) {
            inc.pipeline.peerMessage(from, m, roundTime(now));
            round(now);
            return;
        }
        if (inc.inbox.isEmpty()) {
            sim.after(batchRandom.nextInt(3), null, () -> {
                if (inc == current) {
                    takeInbox(inc, sim.now());
                    round(sim.now());
                }
            });
        }
        inc.inbox.add(new PeerIn(from, m));
    }

    /** Hands the inbox's messages to the pipeline in arrival order, in the round under way (as Core's queue does). */
    private void takeInbox(Incarnation inc, long now) {
        if (sim.tracing() && inc.inbox.size() > 1) {
            sim.trace("s" + id + " takes " + inc.inbox.size() + " peer messages");
        }
        PeerIn p;
        while ((p = inc.inbox.poll()) != null) {
            inc.pipeline.peerMessage(p.from(), p.message(), roundTime(now));
        }
    }

    /** A peer message waiting in the inbox (batched rounds). */
    private record PeerIn(int from, Object message) {
    }

    void peerUp(int peer, long now) {
        takeInbox(current, now); // a link's messages before its change, as Core's queue keeps them
        current.pipeline.peerUp(peer);
        round(now);
    }

    void peerDown(int peer, long now) {
        takeInbox(current, now);
        current.pipeline.peerDown(peer);
        round(now);
    }

    private void round(long now) {
        rounds++;
        Incarnation inc = current;
        inc.pipeline.endRound(roundTime(now), true);
        if (inc.stage.installs() > inc.installsSeen && inc == current) {
            inc.installsSeen = inc.stage.installs();
            newestSnapshot = -1; // the received snapshot is in place
            if (faultBug == FaultBug.FORGET_WRITES_ON_SNAP) {
                dev.zkr.tree.TreeInvariants.forgetSessionWrites(inc.tree);
            }
            sim.trace("s" + id + " SNAP installed snapshot " + Zxid.str(log.base()) + " (tree at "
                    + Zxid.str(inc.tree.lastZxid()) + ", log restarted after it)");
        }
        if (!inc.served && inc.pipeline.serving()) {
            inc.served = true;
        }
        scheduleTick(now);
    }

    private void scheduleTick(long now) {
        if (current == null) {
            return;
        }
        long next = Math.max(now + 1, current.pipeline.nextTick() - (roundTime(now) - now));
        if (next < tickAt || tickAt <= now) {
            tickAt = next;
            int inc = current.number;
            sim.at(next, null, () -> {
                if (current != null && current.number == inc) {
                    tickAt = Long.MAX_VALUE;
                    tick(sim.now());
                }
            });
        }
    }

    /** STALE_READS: the copy applies the committed log only up to some txns behind the real tree. */
    private void catchUpStaleTree(Incarnation inc) {
        long target = inc.tree.lastZxid();
        List<Entry> entries = log.durableEntries();
        int lag = 1 + sim.random().nextInt(4);
        int upTo = entries.size() - lag;
        for (int i = 0; i < upTo; i++) {
            Entry e = entries.get(i);
            if (e.zxid() > inc.staleTree.lastZxid() && e.zxid() <= target) {
                TxnCodec.Entry te = TxnCodec.decode(e.payload());
                inc.staleTree.apply(te.header(), te.txn());
            }
        }
    }
}
