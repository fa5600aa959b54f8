package dev.zkr.server.round;

import dev.zkr.check.DurabilityChecker;
import dev.zkr.check.Findings;
import dev.zkr.check.LinearizabilityChecker;
import dev.zkr.check.LinearizabilityReport;
import dev.zkr.check.LogEntry;
import dev.zkr.check.SequentialConsistencyChecker;
import dev.zkr.check.Verdict;
import dev.zkr.check.Znode;
import dev.zkr.check.ZnodeModel;
import dev.zkr.client.NodeData;
import dev.zkr.client.ZkException;
import dev.zkr.consensus.Entry;
import dev.zkr.consensus.Zxid;
import dev.zkr.tree.DataTree;
import dev.zkr.tree.TxnCodec;
import dev.zkr.wire.Message;

import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.SplittableRandom;

/**
 * The deterministic simulator at the whole-server level (docs/testing.md, Whole-server simulator): servers running the
 * real round logic ({@link SimServer}: the real stages around a replica, over an in-memory {@link SimLog}), simulated
 * clients speaking the real request messages ({@link SimClient}) over simulated connections ({@link SimConn}), and
 * seeded faults — crashes (the unsynced log tail lost, or part of it kept), restarts, connection resets, fsync stalls.
 * One {@link SplittableRandom} from one seed drives every choice; the next event is always the earliest queued (ties in
 * scheduling order). Invariants are checked after every event; at the end the clients' histories go to zk-check: writes
 * and sync-then-read pairs linearizable per znode, plain reads sequentially consistent and never back per session,
 * every acknowledged write in the final committed log, replies in request order.
 *
 * <p>1, 3 or 5 servers; an ensemble's servers talk over a simulated peer network.
 */
final class ServerSim {

    /** A broken invariant or history check: the seed fails. */
    static final class Violation extends AssertionError {
        Violation(String message) {
            super(message);
        }
    }

    /** What a seed runs. */
    record Options(int servers, int clients, int keys, long duration, boolean faults, boolean peerLoss,
                   boolean writesAfterReads, boolean invariants, SimServer.ReadBug readBug,
                   boolean ackBeforeFsync, boolean fullTrace, boolean newFaults, SimServer.FaultBug faultBug,
                   boolean acls, boolean resend, boolean ttl, boolean members, SimServer.MemberBug memberBug,
                   boolean batchedRounds) {

        /** A seed's shape: mostly 3 servers, every 4th 5, every 10th a standalone one; 2-5 clients, 1-4 keys. */
        static Options standard(long seed, boolean fullTrace) {
            SplittableRandom r = new SplittableRandom(seed ^ 0x5DEECE66DL);
            int servers = seed % 4 == 0 ? 5 : seed % 10 == 5 ? 1 : 3;
            return new Options(servers, 2 + r.nextInt(4), 1 + r.nextInt(4), 1_500 + r.nextInt(1_500), true, true,
                    true, true, SimServer.ReadBug.NONE, false, fullTrace, false, SimServer.FaultBug.NONE, false, false, false, false, SimServer.MemberBug.NONE,
                    false);
        }

        Options withServers(int n) {
            return new Options(n, clients, keys, duration, faults, peerLoss, writesAfterReads, invariants, readBug, ackBeforeFsync, fullTrace, newFaults, faultBug, acls, resend, ttl, members, memberBug, batchedRounds);
        }

        /**
         * Peer links that never lose a message while both ends run (no resets, no partitions; crashes still cut a
         * crashed server's links).
         */
        Options withoutPeerLoss() {
            return new Options(servers, clients, keys, duration, faults, false, writesAfterReads, invariants, readBug, ackBeforeFsync,
                    fullTrace, newFaults, faultBug, acls, resend, ttl, members, memberBug, batchedRounds);
        }

        /** Clients send no write while a read of their session waits for its reply. */
        Options withoutWritesAfterReads() {
            return new Options(servers, clients, keys, duration, faults, peerLoss, false, invariants, readBug,
                    ackBeforeFsync, fullTrace, newFaults, faultBug, acls, resend, ttl, members, memberBug, batchedRounds);
        }

        Options withReadBug(SimServer.ReadBug bug) {
            return new Options(servers, clients, keys, duration, faults, peerLoss, writesAfterReads, invariants, bug, ackBeforeFsync, fullTrace, newFaults, faultBug, acls, resend, ttl, members, memberBug, batchedRounds);
        }

        Options withAckBeforeFsync() {
            return new Options(servers, clients, keys, duration, faults, peerLoss, writesAfterReads, invariants, readBug, true, fullTrace, newFaults, faultBug, acls, resend, ttl, members, memberBug, batchedRounds);
        }

        /** Per-event invariants off: only the end-of-run history checks judge the run. */
        Options historyOnly() {
            return new Options(servers, clients, keys, duration, faults, peerLoss, writesAfterReads, false, readBug, ackBeforeFsync, fullTrace, newFaults, faultBug, acls, resend, ttl, members, memberBug, batchedRounds);
        }

        /**
         * The faults added after the first bug hunts (clock jumps, disk full, torn records), drawn from their own
         * random stream: the named seeds of {@link ServerSimRegressionTest} run without them, as they were found.
         */
        Options withNewFaults() {
            return new Options(servers, clients, keys, duration, faults, peerLoss, writesAfterReads, invariants, readBug,
                    ackBeforeFsync, fullTrace, true, faultBug, acls, resend, ttl, members, memberBug, batchedRounds);
        }

        /** A test-only clock bug (with the new faults, which jump clocks). */
        Options withFaultBug(SimServer.FaultBug bug) {
            return new Options(servers, clients, keys, duration, faults, peerLoss, writesAfterReads, invariants, readBug,
                    ackBeforeFsync, fullTrace, true, bug, acls, resend, ttl, members, memberBug, batchedRounds);
        }

        /**
         * ACL traffic on top of the workload (off by default, so the named seeds keep their schedules): creates with
         * a non-default ACL, setAcl (any or a given aversion), getAcl; every ACL still grants the simulated clients
         * everything. Its choices come from their own random stream ({@link SimClient}).
         */
        Options withAcls() {
            return new Options(servers, clients, keys, duration, faults, peerLoss, writesAfterReads, invariants, readBug,
                    ackBeforeFsync, fullTrace, newFaults, faultBug, true, resend, ttl, members, memberBug, batchedRounds);
        }

        /**
         * Exactly-once clients (off by default, so the named seeds keep their schedules): a client whose connection
         * drops while its session lives re-sends its writes in flight with their original xids, in order, on its next
         * connection, and now and then drops its connection itself right after sending a write (a lost reply, the
         * write still on its way: a late duplicate); its choices come from its own random stream. Checked: no write
         * ends CONNECTION_LOSS while its session lives, and every write is applied at most once (docs/exactly-once.md).
         */
        Options withResend() {
            return new Options(servers, clients, keys, duration, faults, peerLoss, writesAfterReads, invariants, readBug,
                    ackBeforeFsync, fullTrace, newFaults, faultBug, acls, true, ttl, members, memberBug, batchedRounds);
        }

        /**
         * TTL-node traffic beside the workload (off by default, so the named seeds keep their schedules): TTL nodes
         * /t0../t2 of 20..420 ms (some sequential), children that hold them, setData that renews them, their
         * deletion by the leader; outside the histories (the tree digests compare them across servers). Its
         * choices come from their own random stream ({@link SimClient}); servers check TTLs every 100 ms.
         */
        Options withTtl() {
            return new Options(servers, clients, keys, duration, faults, peerLoss, writesAfterReads, invariants, readBug,
                    ackBeforeFsync, fullTrace, newFaults, faultBug, acls, resend, true, members, memberBug, batchedRounds);
        }

        /**
         * Random membership changes (docs/membership.md; off by default, so every earlier seed keeps its schedule):
         * an ensemble of 3 or 5 with {@link ServerSim#SPARES} spare servers (new ids) that join; during the faults a server
         * (mostly the in-service leader) is asked for a random change every 100-400 ms, drawn from its own random
         * stream. Removed servers keep running and take faults. A standalone shape becomes 3 servers.
         */
        Options withMembers() {
            return new Options(servers == 1 ? 3 : servers, clients, keys, duration, faults, peerLoss, writesAfterReads,
                    invariants, readBug, ackBeforeFsync, fullTrace, newFaults, faultBug, acls, resend, ttl, true,
                    memberBug, batchedRounds);
        }

        /** With membership changes and a test-only membership bug. */
        Options withMemberBug(SimServer.MemberBug bug) {
            return new Options(servers, clients, keys, duration, faults, peerLoss, writesAfterReads, invariants,
                    readBug, ackBeforeFsync, fullTrace, newFaults, faultBug, acls, resend, ttl, members, bug, batchedRounds)
                    .withMembers();
        }

        /**
         * Batched rounds (off by default, so every earlier seed keeps its schedule): a server's peer messages wait
         * 0-2 ms and are taken together in one round, from every peer, as Core's queue gathers what arrives while a
         * round runs (a follower's ack and its next forwarded write among them); the waits come from their own
         * random stream.
         */
        Options withBatchedRounds() {
            return new Options(servers, clients, keys, duration, faults, peerLoss, writesAfterReads, invariants,
                    readBug, ackBeforeFsync, fullTrace, newFaults, faultBug, acls, resend, ttl, members, memberBug,
                    true);
        }

        Options withFullTrace() {
            return new Options(servers, clients, keys, duration, faults, peerLoss, writesAfterReads, invariants, readBug, ackBeforeFsync, true, newFaults, faultBug, acls, resend, ttl, members, memberBug, batchedRounds);
        }
    }

    /** Counters over a run. */
    static final class Stats {
        long events;
        long rounds;
        long ops;
        long indeterminate;
        long crashes;
        long resets;
        long partitions;
        long stalls;
        long lostAtCrash;
        long keptAtCrash;
        long sessions;
        long committed;
        long linSteps;
        long elections;
        long diffSyncs;
        long truncSyncs;
        long snapSyncs;
        long snapInstalls;
        long snapshots;
        long purged;
        long clockJumps;
        long diskFull;
        long failStops;
        long tornTails;
        long aclCreates;
        long setAcls;
        long getAcls;
        long aclSights;
        long maxDistinctAcls;
        /** Exactly-once: client txns in the committed log, writes sent again, drops after a write, writes lost with their session. */
        long clientTxns;
        /** Writes sent again that a leader found applied or sequenced already (answered with the saved reply). */
        long duplicates;
        /** Client txns in the committed log with a lower xid than an earlier txn of their session. */
        long outOfOrder;
        final List<Long> outOfOrderSeeds = new ArrayList<>();
        long resent;
        long dropsAfterWrite;
        long lostWithSession;
        long ttlCreates;
        long ttlDeletes;
        /** Membership changes: asked, sequenced by a leader, refused, records committed, leaders removing themselves. */
        long membershipAsked;
        long membershipSequenced;
        long membershipRefused;
        long membershipCommitted;
        long leadersRemoved;
        long sparesStarted;
        /** SNAP installs on servers that joined (the membership from the snapshot's trailer). */
        long spareSnapInstalls;

        void add(Stats o) {
            events += o.events;
            rounds += o.rounds;
            ops += o.ops;
            indeterminate += o.indeterminate;
            crashes += o.crashes;
            resets += o.resets;
            partitions += o.partitions;
            stalls += o.stalls;
            lostAtCrash += o.lostAtCrash;
            keptAtCrash += o.keptAtCrash;
            sessions += o.sessions;
            committed += o.committed;
            linSteps += o.linSteps;
            elections += o.elections;
            diffSyncs += o.diffSyncs;
            truncSyncs += o.truncSyncs;
            snapSyncs += o.snapSyncs;
            snapInstalls += o.snapInstalls;
            snapshots += o.snapshots;
            purged += o.purged;
            clockJumps += o.clockJumps;
            diskFull += o.diskFull;
            failStops += o.failStops;
            tornTails += o.tornTails;
            aclCreates += o.aclCreates;
            setAcls += o.setAcls;
            getAcls += o.getAcls;
            aclSights += o.aclSights;
            maxDistinctAcls = Math.max(maxDistinctAcls, o.maxDistinctAcls);
            clientTxns += o.clientTxns;
            duplicates += o.duplicates;
            outOfOrder += o.outOfOrder;
            outOfOrderSeeds.addAll(o.outOfOrderSeeds);
            resent += o.resent;
            dropsAfterWrite += o.dropsAfterWrite;
            lostWithSession += o.lostWithSession;
            ttlCreates += o.ttlCreates;
            ttlDeletes += o.ttlDeletes;
            membershipAsked += o.membershipAsked;
            membershipSequenced += o.membershipSequenced;
            membershipRefused += o.membershipRefused;
            membershipCommitted += o.membershipCommitted;
            leadersRemoved += o.leadersRemoved;
            sparesStarted += o.sparesStarted;
            spareSnapInstalls += o.spareSnapInstalls;
        }

        @Override
        public String toString() {
            return "events " + events + ", rounds " + rounds + ", client ops " + ops + " (" + indeterminate
                    + " indeterminate), sessions " + sessions + ", committed txns " + committed + ", crashes "
                    + crashes + " (unsynced records lost " + lostAtCrash + ", kept " + keptAtCrash + "), resets "
                    + resets + ", partitions " + partitions + ", fsync stalls " + stalls + ", linearizability steps " + linSteps
                    + ", elections " + elections + ", syncs DIFF/TRUNC/SNAP " + diffSyncs + "/" + truncSyncs + "/"
                    + snapSyncs + " (installed " + snapInstalls + "), snapshots " + snapshots + " (records purged "
                    + purged + "), clock jumps " + clockJumps
                    + ", disk full " + diskFull + " (fail-stops " + failStops + "), torn records " + tornTails
                    + (setAcls + getAcls + aclCreates > 0 ? ", creates with an ACL " + aclCreates + ", setAcl "
                    + setAcls + ", getAcl " + getAcls + ", ACL sights checked " + aclSights
                    + ", most distinct ACLs in a final tree " + maxDistinctAcls : "")
                    + (resent + dropsAfterWrite > 0 ? ", exactly-once: client txns " + clientTxns + ", writes sent again "
                    + resent + " (found applied or sequenced: " + duplicates + "), client txns out of their session's order " + outOfOrder + " (seeds " + outOfOrderSeeds + "), drops after a write " + dropsAfterWrite + ", writes lost with their session "
                    + lostWithSession : "")
                    + (ttlCreates > 0 ? ", TTL nodes created " + ttlCreates + ", expired and deleted " + ttlDeletes
                    : "")
                    + (membershipAsked > 0 ? ", membership changes asked " + membershipAsked + " (sequenced "
                    + membershipSequenced + ", refused " + membershipRefused + "), records committed "
                    + membershipCommitted + ", leaders removing themselves " + leadersRemoved + ", spares started "
                    + sparesStarted + " (SNAP installs on them " + spareSnapInstalls + ")" : "");
        }
    }

    private record Event(long time, long seq, String what, Runnable action) {
    }

    private static final int RECENT_LINES = 60;
    /** How long after the faults every client must have its replies. */
    private static final long QUIET_MS = 10_000;
    /** The path of committed-log entries for txns that change no key (sessions, EPOCH records). */
    private static final String OTHER_PATHS = "(no key)";

    final long seed;
    final Options options;
    final Stats stats = new Stats();
    private final SplittableRandom random;
    /** The new faults' own stream (clock jumps, disk full, torn records): it leaves {@link #random}'s draws alone. */
    private final SplittableRandom faultRandom;
    /** Seeds with snapshots (half the new-fault seeds): servers snapshot, purge their logs, lagging ones get SNAP. */
    final boolean snapshotting;
    /** The run's scratch directory (snapshot files), deleted at the end; null without snapshots. */
    private java.nio.file.Path scratch;
    /** Every txn some server applied (so committed), by zxid: the committed log even where logs were purged. */
    private final java.util.TreeMap<Long, Entry> appliedArchive = new java.util.TreeMap<>();
    private final long[] archivedUpTo;
    private final PriorityQueue<Event> events = new PriorityQueue<>((a, b) -> a.time != b.time
            ? Long.compare(a.time, b.time) : Long.compare(a.seq, b.seq));
    private long seq;
    private long now;
    private final SimHistory history = new SimHistory();
    /** The clients' ACL traffic and sights (used with {@link Options#withAcls()}). */
    private final SimAcls acls = new SimAcls();
    private final List<SimServer> servers = new ArrayList<>();
    private final List<SimClient> clients = new ArrayList<>();
    private final List<String> keys = new ArrayList<>();
    private final List<SimConn> conns = new ArrayList<>();
    private int connIds;
    private final StringBuilder fullTrace = new StringBuilder();
    private final ArrayDeque<String> recent = new ArrayDeque<>();
    private long traceHash = 0xcbf29ce484222325L;
    /** Tree digests by applied zxid, over every server and incarnation. */
    private final Map<Long, Integer> digests = new HashMap<>();
    private final long[] lastDigestZxid;
    private boolean faultsOn;
    /** The peer network: per directed link a generation (bumped by a reset: what is in flight is lost), the last
     * arrival time (FIFO), and whether a partition cuts it (silently: messages are dropped). */
    private final int[][] linkGen;
    private final long[][] linkLast;
    private final boolean[][] blocked;
    /**
     * Per side of a link, the incarnation that still has to hear of the old connection's close ({@link #NONE_OWED}
     * if none): a side hears of its old connection going down before of the new one coming up, as from
     * {@code PeerTransport}, which redials only once the old link closed.
     */
    private final int[][] downOwed;
    private static final int NONE_OWED = Integer.MIN_VALUE;
    /** Leaders seen per epoch. */
    private final Map<Long, Integer> leaders = new HashMap<>();
    /** Every server by id (a spare once started); index 0 unused. */
    private final SimServer[] byId;

    // ---- membership changes (Options.withMembers) ----
    /** Spare servers (new ids after the starting voters') a run with membership changes may add. */
    static final int SPARES = 3;
    /** The membership changes' own random stream: it leaves {@link #random}'s draws alone. */
    private final SplittableRandom memberRandom;
    /** The starting voters (the static {@code server.N} lines). */
    private final List<Integer> initialVoters = new ArrayList<>();
    /** The committed membership sequence, by record zxid, as the servers applied it (the first applier's record). */
    private final java.util.TreeMap<Long, dev.zkr.tree.Txn.Membership> committedMemberships = new java.util.TreeMap<>();
    /** Every membership record any log appended (committed or not), by zxid: what a leader may have counted with. */
    private final java.util.TreeMap<Long, java.util.Set<dev.zkr.tree.Txn.Membership>> appendedMemberships =
            new java.util.TreeMap<>();
    /** Spares a leader sequenced the addition of (never asked again: a spare is added at most once). */
    private final java.util.Set<Integer> sparesAdded = new java.util.HashSet<>();

    ServerSim(long seed, Options options) {
        this.seed = seed;
        this.options = options;
        this.random = new SplittableRandom(seed);
        this.faultRandom = new SplittableRandom(seed * 0x9E3779B97F4A7C15L + 0x2545F4914F6CDD1DL);
        this.snapshotting = options.newFaults() && faultRandom.nextInt(2) == 0;
        for (int k = 0; k < options.keys(); k++) {
            keys.add("/k" + k);
        }
        List<Integer> members = new ArrayList<>();
        for (int i = 1; i <= options.servers(); i++) {
            members.add(i);
        }
        this.memberRandom = new SplittableRandom(seed * 0xBF58476D1CE4E5B9L + 0x94D049BB133111EBL);
        initialVoters.addAll(members);
        int total = members.size() + (options.members() ? SPARES : 0);
        byId = new SimServer[total + 1];
        for (int id : members) {
            SimServer server = newServer(id, members, false);
            byId[id] = server;
            if (options.members()) {
                noteMembershipAppends(server);
            }
            servers.add(server);
        }
        int n = total + 1;
        linkGen = new int[n][n];
        linkLast = new long[n][n];
        blocked = new boolean[n][n];
        downOwed = new int[n][n];
        for (int[] row : downOwed) {
            Arrays.fill(row, NONE_OWED);
        }
        lastDigestZxid = new long[total];
        archivedUpTo = new long[total];
        for (int i = 0; i < options.clients(); i++) {
            // ACL traffic: each client's choices from its own stream, so they leave the shared one's draws alone
            // TTL traffic likewise
            clients.add(new SimClient(i + 1, new ClientNet(), history, random, keys, options.invariants(),
                    !options.writesAfterReads(), options.acls() ? new SplittableRandom(
                            seed * 0xD1B54A32D192ED03L + 0x632BE59BD9B4E019L * (i + 1)) : null, acls,
                    options.ttl() ? new SplittableRandom(seed * 0x9FB21C651E98DF25L + 0x7A646E4D9E1A5A4BL * (i + 1))
                            : null));
            if (options.resend()) {
                clients.get(i).resend(new SplittableRandom(seed * 0x9E3779B97F4A7C15L + 0x2545F4914F6CDD1DL * (i + 1)));
            }
        }
    }

    // ---- running -------------------------------------------------------------------------------------------------

    /** Runs the seed: clients and faults for the options' duration, then a quiet end and the history checks. */
    ServerSim run() {
        try {
            return runAll();
        } finally {
            deleteScratch();
        }
    }

    private java.nio.file.Path scratch() {
        if (scratch == null) {
            try {
                java.nio.file.Path shm = java.nio.file.Path.of("/dev/shm");
                scratch = java.nio.file.Files.isDirectory(shm) && java.nio.file.Files.isWritable(shm)
                        ? java.nio.file.Files.createTempDirectory(shm, "zkr-sim-" + seed + "-")
                        : java.nio.file.Files.createTempDirectory("zkr-sim-" + seed + "-");
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }
        return scratch;
    }

    private void deleteScratch() {
        if (scratch == null) {
            return;
        }
        try (var files = java.nio.file.Files.walk(scratch)) {
            for (java.nio.file.Path p : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
                java.nio.file.Files.deleteIfExists(p);
            }
        } catch (java.io.IOException e) {
            // a scratch directory left behind changes nothing in the run
        }
    }

    private ServerSim runAll() {
        trace("seed " + seed + ": " + servers.size() + " server(s), " + clients.size() + " clients, keys " + keys
                + (options.readBug() != SimServer.ReadBug.NONE ? ", read bug " + options.readBug() : "")
                + (options.ackBeforeFsync() ? ", ack before fsync" : "")
                + (options.faultBug() != SimServer.FaultBug.NONE ? ", fault bug " + options.faultBug() : "")
                + (options.newFaults() ? ", new faults" : "") + (snapshotting ? ", snapshots" : "")
                + (options.acls() ? ", ACL traffic" : ""));
        for (SimServer s : servers) {
            at(0, null, () -> start(s));
        }
        clients.forEach(SimClient::start);
        faultsOn = options.faults();
        if (faultsOn) {
            scheduleFault();
            if (options.newFaults()) {
                scheduleNewFault();
            }
            if (options.members()) {
                scheduleMembershipChange();
            }
        }
        runUntil(options.duration());
        faultsOn = false;
        clients.forEach(SimClient::stop);
        trace("faults end: heal, restart every server");
        heal();
        for (SimServer s : servers) {
            s.log.unstall();
            s.log.free();
            if (!s.up()) {
                start(s);
            }
        }
        long end = now + QUIET_MS;
        while (now < end && !clients.stream().allMatch(SimClient::quiet)) {
            if (!step()) {
                break;
            }
        }
        for (SimClient c : clients) {
            if (!c.quiet()) {
                throw new Violation("c" + c.id + " still waits for " + c.waitingFor() + " " + QUIET_MS
                        + " ms after the faults ended");
            }
        }
        runUntil(now + 500); // the last fsyncs, commits and heartbeats
        checkHistories();
        return this;
    }

    private void runUntil(long time) {
        while (!events.isEmpty() && events.peek().time <= time) {
            step();
        }
        now = Math.max(now, time);
    }

    private boolean step() {
        Event e = events.poll();
        if (e == null) {
            return false;
        }
        now = e.time;
        stats.events++;
        if (e.what != null) {
            trace(e.what);
        }
        e.action.run();
        if (snapshotting) {
            archiveApplied();
        }
        if (options.invariants()) {
            checkInvariants();
        }
        return true;
    }

    /** Queues {@code action} at {@code time} ({@code what}: its trace line, or null for none). */
    void at(long time, String what, Runnable action) {
        events.add(new Event(Math.max(time, now), ++seq, what, action));
    }

    void after(long delay, String what, Runnable action) {
        at(now + delay, what, action);
    }

    long now() {
        return now;
    }

    SplittableRandom random() {
        return random;
    }

    // ---- faults --------------------------------------------------------------------------------------------------

    private void scheduleFault() {
        after(50 + random.nextInt(400), null, () -> {
            if (!faultsOn) {
                return;
            }
            SimServer s = servers.get(random.nextInt(servers.size()));
            int r = random.nextInt(servers.size() > 1 ? 14 : 10);
            if (r < 3 && s.up()) {
                crash(s);
            } else if (r < 4 && s.up() && servers.size() > 1) {
                crash(leaderOrAny());
            } else if (r < 7) {
                resetSomeConnection();
            } else if (r < 9 && s.up()) {
                stats.stalls++;
                long stall = 20 + random.nextInt(300);
                trace("s" + s.id + " fsync stall " + stall + " ms");
                s.log.stall();
                after(stall, "s" + s.id + " fsync stall ends", s.log::unstall);
            } else if (r < 10 && options.peerLoss()) {
                resetPeerLink();
            } else if (options.peerLoss()) {
                partition();
            }
            scheduleFault();
        });
    }

    /** The faults added later, on their own random stream: clock jumps, disk full, torn records. */
    private void scheduleNewFault() {
        after(100 + faultRandom.nextInt(600), null, () -> {
            if (!faultsOn) {
                return;
            }
            int r = faultRandom.nextInt(snapshotting ? 14 : 10);
            SimServer s = faultRandom.nextInt(2) == 0 ? leaderOrAny() : servers.get(faultRandom.nextInt(servers.size()));
            if (r < 6) {
                jumpClock(s);
            } else if (r < 8 && !s.log.full()) {
                long millis = 100 + faultRandom.nextInt(900);
                stats.diskFull++;
                s.log.fill();
                trace("s" + s.id + " DISK FULL for " + millis + " ms");
                after(millis, "s" + s.id + " disk has space again", s.log::free);
            } else if (r >= 10) { // snapshotting seeds only
                if (s.up()) {
                    int retain = faultRandom.nextInt(4);
                    long z = s.snapshotAndPurge(retain);
                    if (z > 0) {
                        stats.snapshots++;
                        trace("s" + s.id + " snapshot " + Zxid.str(z) + ", log purged (retention " + retain + "), starts"
                                + " after " + Zxid.str(s.log.base()));
                    }
                }
            }
            scheduleNewFault();
        });
    }

    /** A server's wall clock jumps 1-10 s forward or back (NTP step, VM migration). */
    private void jumpClock(SimServer s) {
        long millis = (1_000 + faultRandom.nextInt(9_000)) * (faultRandom.nextBoolean() ? 1 : -1);
        stats.clockJumps++;
        s.jumpClock(millis);
        trace("s" + s.id + " CLOCK JUMP " + (millis > 0 ? "+" : "") + millis + " ms");
    }

    /** The server that leads now, else any. */
    private SimServer leaderOrAny() {
        for (SimServer s : servers) {
            if (s.up() && s.role().role() == dev.zkr.consensus.Role.LEADER) {
                return s;
            }
        }
        return servers.get(random.nextInt(servers.size()));
    }

    private void start(SimServer s) {
        s.start(now);
        for (SimServer o : servers) {
            if (o != s && o.up()) {
                connectPeers(s, o);
            }
        }
    }

    /** The peer connections between two running servers come up (each side learns it after a delay). */
    private void connectPeers(SimServer a, SimServer b) {
        int ia = a.incarnation();
        int ib = b.incarnation();
        int gab = linkGen[a.id][b.id];
        after(1 + random.nextInt(20), null, () -> {
            if (a.up() && b.up() && a.incarnation() == ia && b.incarnation() == ib && linkGen[a.id][b.id] == gab) {
                hearDown(a, b);
                hearDown(b, a);
                if (!a.up() || !b.up() || a.incarnation() != ia || b.incarnation() != ib) {
                    return;
                }
                trace("s" + a.id + " <-> s" + b.id + " up");
                a.peerUp(b.id, now);
                if (b.incarnation() == ib) {
                    b.peerUp(a.id, now);
                }
            }
        });
    }

    /** A peer message: FIFO per link, seeded delay with a long tail; lost on a reset, a partition or a crash. */
    void peerSend(int from, int to, Object m) {
        if (blocked[from][to]) {
            if (tracing()) {
                trace("s" + from + " => s" + to + " " + m + " LOST (partition)");
            }
            return;
        }
        int gen = linkGen[from][to];
        long delay = 1 + random.nextInt(4) + (random.nextInt(40) == 0 ? 20 + random.nextInt(150) : 0);
        long arrival = Math.max(linkLast[from][to], now + delay);
        linkLast[from][to] = arrival;
        SimServer target = server(to);
        if (m instanceof dev.zkr.consensus.ReplicaMessage.SyncStart ss) {
            switch (ss.mode()) {
                case DIFF -> stats.diffSyncs++;
                case TRUNC -> stats.truncSyncs++;
                case SNAP -> stats.snapSyncs++;
                default -> { }
            }
        }
        at(arrival, null, () -> {
            boolean delivered = linkGen[from][to] == gen && !blocked[from][to] && target.up();
            if (tracing()) {
                // payload hashes included: txn times come from each server's simulated wall clock (TxnClock)
                trace("s" + from + " => s" + to + " " + m + (delivered ? "" : " LOST"));
            }
            if (delivered) {
                target.peerMessage(from, m, now);
            }
        });
    }

    /** A peer connection resets: what is in flight both ways is lost; both sides see it down, then up again. */
    private void resetPeerLink() {
        SimServer a = servers.get(random.nextInt(servers.size()));
        SimServer b = servers.get(random.nextInt(servers.size()));
        if (a == b || !a.up() || !b.up()) {
            return;
        }
        stats.resets++;
        trace("s" + a.id + " <-> s" + b.id + " RESET");
        cutLink(a, b);
        connectPeers(a, b);
    }

    private void cutLink(SimServer a, SimServer b) {
        linkGen[a.id][b.id]++;
        linkGen[b.id][a.id]++;
        linkLast[a.id][b.id] = 0;
        linkLast[b.id][a.id] = 0;
        downOwed[a.id][b.id] = a.incarnation();
        downOwed[b.id][a.id] = b.incarnation();
        after(1 + random.nextInt(5), null, () -> hearDown(a, b));
        after(1 + random.nextInt(5), null, () -> hearDown(b, a));
    }

    /** {@code a} hears that its connection to {@code b} closed, if it still owes that (at most once per cut). */
    private void hearDown(SimServer a, SimServer b) {
        int owed = downOwed[a.id][b.id];
        downOwed[a.id][b.id] = NONE_OWED;
        if (owed != NONE_OWED && a.up() && a.incarnation() == owed) {
            trace("s" + a.id + " sees s" + b.id + " down");
            a.peerDown(b.id, now);
        }
    }

    /** A silent partition (connections stay up, messages dropped): one server isolated, random halves, or one way. */
    private void partition() {
        int n = servers.size();
        int[] ids = servers.stream().mapToInt(x -> x.id).toArray(); // 1..n unless spares joined
        int kind = random.nextInt(3);
        stats.partitions++;
        if (kind == 0) {
            int x = ids[random.nextInt(n)];
            for (int o : ids) {
                if (o != x) {
                    blocked[x][o] = true;
                    blocked[o][x] = true;
                }
            }
            trace("PARTITION s" + x + " isolated");
        } else if (kind == 1) {
            boolean[] side = new boolean[byId.length];
            StringBuilder sb = new StringBuilder();
            for (int i : ids) {
                side[i] = random.nextBoolean();
                if (side[i]) {
                    sb.append(" s").append(i);
                }
            }
            for (int i : ids) {
                for (int j : ids) {
                    if (side[i] != side[j]) {
                        blocked[i][j] = true;
                    }
                }
            }
            trace("PARTITION {" + sb + " } | the rest");
        } else {
            int a = ids[random.nextInt(n)];
            int b = ids[random.nextInt(n)];
            if (a != b) {
                blocked[a][b] = true;
                trace("PARTITION one way s" + a + " -/-> s" + b);
            }
        }
        after(100 + random.nextInt(900), null, this::heal);
    }

    private void heal() {
        boolean any = false;
        for (boolean[] row : blocked) {
            for (int j = 0; j < row.length; j++) {
                any |= row[j];
                row[j] = false;
            }
        }
        if (any) {
            trace("HEAL");
        }
    }

    /**
     * A server's log failed (disk full): it stops, as ZkServer does when its core sees the failure (it kills
     * itself: sockets closed, nothing more written). Its process is gone as after a crash; it restarts once the disk
     * has space again.
     */
    void logFailed(SimServer s, int incarnation, Throwable e) {
        if (s.incarnation() != incarnation) {
            return;
        }
        trace("s" + s.id + " FAIL-STOP: " + e.getMessage());
        crash(s);
    }

    private void crash(SimServer s) {
        stats.crashes++;
        long lostBefore = s.log.lostAtCrash;
        long keptBefore = s.log.keptAtCrash;
        long tornBefore = s.log.tornAtCrash;
        s.crash();
        s.log.unstall();
        trace("s" + s.id + " CRASH (unsynced records lost " + (s.log.lostAtCrash - lostBefore) + ", kept "
                + (s.log.keptAtCrash - keptBefore) + (s.log.tornAtCrash > tornBefore ? ", the next torn: recovery kept the "
                + "valid prefix" : "") + "); log now " + Zxid.str(s.log.trueDurableZxid()));
        for (SimServer o : servers) {
            if (o != s) {
                cutLink(s, o);
            }
        }
        for (SimConn c : List.copyOf(conns)) {
            if (c.server == s.id) {
                c.open = false;
                conns.remove(c);
                after(1 + random.nextInt(10), "c" + c.client.id + " sees " + c + " closed", () ->
                        c.client.disconnected(c));
            }
        }
        after(20 + random.nextInt(400), null, () -> restartWhenSpace(s));
    }

    /** Restarts a stopped server, once its disk has space (a full disk would fail its first write again). */
    private void restartWhenSpace(SimServer s) {
        if (s.up()) {
            return;
        }
        if (s.log.full() && faultsOn) {
            after(50, null, () -> restartWhenSpace(s));
            return;
        }
        start(s);
    }

    private void resetSomeConnection() {
        if (conns.isEmpty()) {
            return;
        }
        SimConn c = conns.get(random.nextInt(conns.size()));
        stats.resets++;
        trace(c + " RESET");
        closeConn(c, true);
    }

    /** Closes a connection: nothing more crosses it; both sides learn of it after a delay. */
    private void closeConn(SimConn c, boolean clientToo) {
        if (!c.open) {
            return;
        }
        c.open = false;
        conns.remove(c);
        SimServer s = server(c.server);
        after(1 + random.nextInt(5), null, () -> {
            if (s.incarnation() == c.incarnation && !c.serverSawClose) {
                c.serverSawClose = true;
                trace("s" + s.id + " sees " + c + " closed");
                s.disconnected(c, now);
            }
        });
        if (clientToo) {
            after(1 + random.nextInt(5), "c" + c.client.id + " sees " + c + " closed", () ->
                    c.client.disconnected(c));
        }
    }

    private SimServer server(int id) {
        return byId[id];
    }

    // ---- membership changes (Options.withMembers) -------------------------------------------------------------------

    private void scheduleMembershipChange() {
        after(100 + memberRandom.nextInt(300), null, () -> {
            if (!faultsOn) {
                return;
            }
            askMembershipChange();
            scheduleMembershipChange();
        });
    }

    /**
     * A server — the in-service leader four times in five, else any running one (which must refuse unless it is the
     * in-service leader) — is asked for a random change of the membership it holds: add a spare as a learner or an
     * observer (the spare is started first, with {@code join=true}), promote an observer, or remove any member (the
     * leader included).
     */
    private void askMembershipChange() {
        SimServer s = memberRandom.nextInt(5) == 0 ? servers.get(memberRandom.nextInt(servers.size())) : leaderOrAny();
        if (!s.up()) {
            return;
        }
        dev.zkr.tree.Txn.Membership m = s.membership();
        List<Integer> voters = m.ids(dev.zkr.client.EnsembleMember.Role.VOTER);
        List<Integer> observers = m.ids(dev.zkr.client.EnsembleMember.Role.OBSERVER);
        int fresh = -1;
        for (int id = initialVoters.size() + 1; id < byId.length; id++) {
            if (!sparesAdded.contains(id) && m.member(id) == null) {
                fresh = id;
                break;
            }
        }
        int kind = memberRandom.nextInt(10);
        dev.zkr.client.MembershipChange change;
        if (fresh > 0 && kind < 3 && voters.size() < 5) {
            change = dev.zkr.client.MembershipChange.add(fresh, "127.0.0.1", 20_000 + fresh, 10_000 + fresh);
        } else if (fresh > 0 && kind < 5) {
            change = dev.zkr.client.MembershipChange.addObserver(fresh, "127.0.0.1", 20_000 + fresh, 10_000 + fresh);
        } else if (!observers.isEmpty() && kind < 6) {
            change = dev.zkr.client.MembershipChange.promote(observers.get(memberRandom.nextInt(observers.size())));
        } else if (voters.size() > 2 || voters.size() > 1 && kind == 9) {
            List<Integer> all = m.members().stream().map(dev.zkr.client.EnsembleMember::id).toList();
            change = dev.zkr.client.MembershipChange.remove(all.get(memberRandom.nextInt(all.size())));
        } else {
            return;
        }
        boolean add = change.kind() == dev.zkr.client.MembershipChange.Kind.ADD
                || change.kind() == dev.zkr.client.MembershipChange.Kind.ADD_OBSERVER;
        if (add && byId[change.id()] == null) {
            startSpare(change.id(), voters);
        }
        boolean inService = s.current.replica.isLeaderInService();
        stats.membershipAsked++;
        java.util.concurrent.CompletableFuture<Long> done = s.changeMembership(change, now);
        if (done.isCompletedExceptionally()) {
            stats.membershipRefused++;
            Throwable why = done.handle((z, e) -> e).join();
            trace("s" + s.id + " refuses " + change.kind() + " s" + change.id() + ": " + why.getMessage());
            // refused as a client is refused (another change pending, not caught up, a change that does not apply),
            // or not the leader in service
            if (!(why instanceof IllegalStateException || why instanceof IllegalArgumentException
                    || why instanceof dev.zkr.client.ZkException.ReconfigInProgress
                    || why instanceof dev.zkr.client.ZkException.NewConfigNoQuorum
                    || why instanceof dev.zkr.client.ZkException.BadArguments)) {
                throw new Violation("s" + s.id + " refuses " + change + " with " + why);
            }
            return;
        }
        if (!inService) {
            throw new Violation("s" + s.id + " accepted " + change + " while not the in-service leader: "
                    + s.role());
        }
        stats.membershipSequenced++;
        if (add) {
            sparesAdded.add(change.id());
        }
        if (change.kind() == dev.zkr.client.MembershipChange.Kind.REMOVE && change.id() == s.id) {
            stats.leadersRemoved++;
        }
        trace("s" + s.id + " sequences " + change.kind() + " s" + change.id() + ": now " + s.membership().members()
                .stream().map(x -> x.id() + ":" + x.role()).toList());
        done.whenComplete((z, e) -> trace("s" + s.id + ": " + change.kind() + " s" + change.id()
                + (e == null ? " applied at " + Zxid.str(z) : " not known applied: " + e.getMessage())));
    }

    /**
     * Server {@code id} configured with {@code members}' lines ({@code joins}: a spare, its own line a learner's):
     * its log, snapshot store and the run's test-only bugs and batching, as the options say.
     */
    private SimServer newServer(int id, List<Integer> members, boolean joins) {
        SimLog log = new SimLog("s" + id, this::after, random, options.ackBeforeFsync());
        log.faultRandom = options.newFaults() ? faultRandom : null;
        log.bug = options.faultBug();
        SimServer server = new SimServer(id, members, this, log, options.readBug(), options.ttl(),
                options.members() || joins, joins);
        if (snapshotting) {
            server.snapshots = dev.zkr.storage.SnapshotStore.open(scratch().resolve("s" + id));
        }
        server.faultBug = options.faultBug();
        server.memberBug = options.memberBug();
        if (options.batchedRounds()) {
            server.batchRandom = new SplittableRandom(seed * 0xD1B54A32D192ED03L + id);
        }
        return server;
    }

    /** Starts spare {@code id}, configured with {@code voters}' lines and its own ({@code join=true}). */
    private void startSpare(int id, List<Integer> voters) {
        SimServer spare = newServer(id, voters, true);
        noteMembershipAppends(spare);
        byId[id] = spare;
        servers.add(spare);
        stats.sparesStarted++;
        trace("s" + id + " spare starts to join (voters " + voters + ")");
        start(spare);
    }

    /**
     * Every membership record a server's replica hands to its log (in force from then, even if the write then fails)
     * goes to {@link #appendedMemberships}.
     */
    private void noteMembershipAppends(SimServer s) {
        s.membershipAppended = e -> {
            dev.zkr.tree.Txn.Membership m = TxnCodec.membershipOf(e.payload());
            if (m != null) {
                appendedMemberships.computeIfAbsent(e.zxid(), z -> new java.util.HashSet<>()).add(m);
            }
        };
    }

    /** The members of the newest committed membership (clients connect to them: voters, learners, observers). */
    private List<Integer> committedMembers() {
        Map.Entry<Long, dev.zkr.tree.Txn.Membership> last = committedMemberships.lastEntry();
        return last == null ? initialVoters
                : last.getValue().members().stream().map(dev.zkr.client.EnsembleMember::id).toList();
    }

    /** The voters of the committed membership in force at {@code zxid} (the static ones before any record). */
    private List<Integer> committedVotersAt(long zxid) {
        Map.Entry<Long, dev.zkr.tree.Txn.Membership> at = committedMemberships.floorEntry(zxid);
        return at == null ? initialVoters : at.getValue().ids(dev.zkr.client.EnsembleMember.Role.VOTER);
    }

    /**
     * After every event, for a running server (runs with membership changes): what it applied of the membership is
     * the committed sequence's (the first server to apply a record at a zxid defines it; every other must agree, and
     * none may apply past a committed record without it); its replica's committed membership is the sequence's at
     * its commit point; and it leads only while it is a voter of its current or its committed membership (a leader
     * whose removal committed steps down; learners and observers never lead).
     */
    private void checkMembership(SimServer s, long applied, boolean appliedChanged) {
        dev.zkr.consensus.Replica replica = s.current.replica;
        if (appliedChanged) {
            DataTree.AppliedMembership am = s.current.tree.membership();
            if (am != null) {
                dev.zkr.tree.Txn.Membership before = committedMemberships.putIfAbsent(am.zxid(), am.membership());
                if (before != null && !before.equals(am.membership())) {
                    throw new Violation("s" + s.id + " applied membership " + am.membership().members() + " at "
                            + Zxid.str(am.zxid()) + ", another server " + before.members() + " there");
                }
            }
            Map.Entry<Long, dev.zkr.tree.Txn.Membership> floor = committedMemberships.floorEntry(applied);
            if (floor != null && (am == null || am.zxid() != floor.getKey())) {
                throw new Violation("s" + s.id + " applied up to " + Zxid.str(applied) + " with membership "
                        + (am == null ? "(none: the static one)" : "of " + Zxid.str(am.zxid()))
                        + ", the committed sequence has " + floor.getValue().members() + " at "
                        + Zxid.str(floor.getKey()));
            }
            stats.membershipCommitted = committedMemberships.size();
        }
        Map.Entry<Long, dev.zkr.tree.Txn.Membership> atCommit = committedMemberships.floorEntry(replica.commitZxid());
        if (replica.commitZxid() == applied && (atCommit != null || !s.joins)) {
            dev.zkr.consensus.Membership expected = atCommit == null
                    ? dev.zkr.consensus.Membership.ofVoters(initialVoters)
                    : dev.zkr.server.replication.Members.toConsensus(atCommit.getValue());
            if (!expected.equals(replica.committedMembership())) {
                throw new Violation("s" + s.id + "'s committed membership at " + Zxid.str(replica.commitZxid()) + " is "
                        + replica.committedMembership() + ", the committed sequence's is " + expected);
            }
        }
        if (s.role().role() == dev.zkr.consensus.Role.LEADER && !replica.membership().isVoter(s.id)
                && !replica.committedMembership().isVoter(s.id)) {
            throw new Violation("s" + s.id + " leads epoch " + s.role().epoch() + " but is a voter of neither its "
                    + "membership " + replica.membership() + " nor its committed one "
                    + replica.committedMembership());
        }
    }

    /**
     * Runs with membership changes: a majority of the voters of the committed membership in force at {@code zxid}
     * holds it durably — or, as a membership is in force from its append, a majority of those of a record after
     * {@code zxid} (up to the next committed one) that a leader may have counted with.
     */
    private boolean durableOnMembersQuorum(long zxid) {
        if (heldByMajority(zxid, committedVotersAt(zxid))) {
            return true;
        }
        Long nextCommitted = committedMemberships.higherKey(zxid);
        var after = appendedMemberships.subMap(zxid, false, nextCommitted == null ? Long.MAX_VALUE : nextCommitted,
                true);
        for (java.util.Set<dev.zkr.tree.Txn.Membership> ms : after.values()) {
            for (dev.zkr.tree.Txn.Membership m : ms) {
                if (heldByMajority(zxid, m.ids(dev.zkr.client.EnsembleMember.Role.VOTER))) {
                    return true;
                }
            }
        }
        return false;
    }

    private boolean heldByMajority(long zxid, List<Integer> voters) {
        int holders = 0;
        for (int v : voters) {
            SimServer s = byId[v];
            if (s != null && (s.log.durableEntry(zxid) != null || zxid <= s.newestSnapshot())) {
                holders++;
            }
        }
        return holders > voters.size() / 2;
    }

    // ---- the client network --------------------------------------------------------------------------------------

    /** The simulator as the clients see it. */
    private final class ClientNet implements SimClient.Net {
        @Override
        public SimConn connect(SimClient client) {
            SimServer s;
            if (options.members()) { // the committed members, as an operator's connect string lists them
                List<Integer> ids = committedMembers();
                s = byId[ids.get(random.nextInt(ids.size()))];
            } else {
                s = servers.get(random.nextInt(servers.size()));
            }
            if (!s.accepting()) {
                trace("c" + client.id + " connect to s" + s.id + " refused (not serving)");
                return null;
            }
            SimConn c = new SimConn(++connIds, client, s.id, s.incarnation(), ServerSim.this::toClient);
            c.connection = new Connection(c, s.current.outbox);
            conns.add(c);
            trace("c" + client.id + " connects " + c);
            return c;
        }

        @Override
        public void send(SimConn c, Message m) {
            if (!c.open) {
                return;
            }
            long arrival = Math.max(c.lastToServer, now + 1 + random.nextInt(4));
            c.lastToServer = arrival;
            SimServer s = server(c.server);
            at(arrival, null, () -> {
                boolean delivered = c.open && s.incarnation() == c.incarnation;
                if (tracing()) {
                    trace(c + " -> s" + s.id + " " + describe(m) + (delivered ? "" : " LOST"));
                }
                if (delivered) {
                    s.request(c, m, now);
                }
            });
        }

        @Override
        public void close(SimConn c) {
            closeConn(c, false);
        }

        @Override
        public void after(long delay, String what, Runnable action) {
            ServerSim.this.after(delay, what, action);
        }

        @Override
        public long now() {
            return now;
        }

        @Override
        public void trace(String line) {
            ServerSim.this.trace(line);
        }

        @Override
        public void checkCommitted(SimClient client, Message.Reply r) {
            if (options.invariants() && !durableOnQuorum(r.zxid())) {
                throw new Violation("c" + client.id + " got the reply to xid " + r.xid() + " at " + Zxid.str(r.zxid())
                        + ", which is not durable on a majority");
            }
        }
    }

    /** A round's messages for a client: checked, then each arrives after a delay, in order. */
    private void toClient(SimConn c, List<Object> batch, int replies) {
        for (Object o : batch) {
            if (!c.open) {
                return;
            }
            long arrival = Math.max(c.lastToClient, now + 1 + random.nextInt(4));
            c.lastToClient = arrival;
            if (o instanceof Message m) {
                at(arrival, null, () -> {
                    if (tracing()) {
                        trace("s" + c.server + " -> " + c + " " + describe(m) + (c.open ? "" : " LOST"));
                    }
                    if (c.open) {
                        c.client.receive(c, m);
                    }
                });
            } else if (o == Connection.Control.CLOSE) {
                at(arrival, "s" + c.server + " closes " + c, () -> {
                    if (c.open) {
                        closeConn(c, true);
                    }
                });
            }
        }
    }

    // ---- invariants ----------------------------------------------------------------------------------------------

    /** True if a majority of the servers hold a durable record at {@code zxid} (0: nothing to hold). */
    private boolean durableOnQuorum(long zxid) {
        if (zxid == 0) {
            return true;
        }
        if (options.members()) {
            return durableOnMembersQuorum(zxid);
        }
        int holders = 0;
        for (SimServer s : servers) {
            if (s.log.durableEntry(zxid) != null || zxid <= s.newestSnapshot()) { // a snapshot file holds it too
                holders++;
            }
        }
        return holders > servers.size() / 2;
    }

    /**
     * After every event: at most one leader per epoch; whatever a server applied is durable on a majority (a
     * committed record, never lost by crashes or truncations); equal tree digests at equal applied zxid, across
     * servers and incarnations. The sim log checks its shape and txn times on every append; the metadata store
     * checks that the accepted epoch never goes back.
     */
    private void checkInvariants() {
        for (int i = 0; i < servers.size(); i++) {
            SimServer s = servers.get(i);
            if (!s.up()) {
                lastDigestZxid[i] = -1;
                continue;
            }
            dev.zkr.consensus.RoleInfo role = s.role();
            if (role.role() == dev.zkr.consensus.Role.LEADER) {
                Integer other = leaders.putIfAbsent(role.epoch(), s.id);
                if (other != null && other != s.id) {
                    throw new Violation("two leaders in epoch " + role.epoch() + ": s" + other + " and s" + s.id);
                }
            }
            DataTree tree = s.current.tree;
            long applied = tree.lastZxid();
            if (options.members()) {
                checkMembership(s, applied, applied != lastDigestZxid[i]);
            }
            if (applied != lastDigestZxid[i]) {
                lastDigestZxid[i] = applied;
                int digest = tree.canonicalDump().hashCode();
                checkAclTable(s, tree);
                try {
                    dev.zkr.tree.TreeInvariants.check(tree); // ACL reference counts exact, indexes, children
                } catch (IllegalStateException e) {
                    throw new Violation("s" + s.id + " tree at " + Zxid.str(applied) + ": " + e.getMessage());
                }
                Integer before = digests.putIfAbsent(applied, digest);
                if (before != null && before != digest) {
                    throw new Violation("s" + s.id + " tree at " + Zxid.str(applied)
                            + " differs from the tree a server (or an earlier incarnation) had at that zxid");
                }
            }
            if (!durableOnQuorum(applied)) {
                throw new Violation("s" + s.id + " applied " + Zxid.str(applied)
                        + ", which is not durable on a majority");
            }
        }
    }

    /**
     * The tree's ACL table holds exactly the distinct ACLs its nodes use (an entry whose reference count is off goes
     * too early, or never).
     */
    private void checkAclTable(SimServer s, DataTree tree) {
        java.util.Set<List<dev.zkr.client.Acl>> used = new java.util.HashSet<>();
        ArrayDeque<String> todo = new ArrayDeque<>(List.of("/"));
        while (!todo.isEmpty()) {
            String path = todo.poll();
            List<dev.zkr.client.Acl> acl = tree.aclOf(path);
            var kids = tree.getChildren(path);
            if (acl == null || kids == null) {
                continue;
            }
            used.add(acl);
            for (String k : kids.names()) {
                todo.add(("/".equals(path) ? "" : path) + "/" + k);
            }
        }
        if (tree.distinctAcls() != used.size()) {
            throw new Violation("s" + s.id + " tree at " + Zxid.str(tree.lastZxid()) + ": its ACL table holds "
                    + tree.distinctAcls() + " distinct ACLs, its nodes use " + used.size() + ": " + used);
        }
    }

    // ---- end of run ----------------------------------------------------------------------------------------------

    /** The final committed log as zk-check's entries: per txn, each key it changed and the node after. */
    private List<LogEntry> committedLog(SimServer s) {
        long commit = s.current.replica.commitZxid();
        DataTree replay = new DataTree();
        List<LogEntry> out = new ArrayList<>();
        Map<String, String> before = new HashMap<>();
        for (String k : keys) {
            before.put(k, identity(replay, k));
        }
        for (Entry e : committedEntries(s, commit)) {
            TxnCodec.Entry te = TxnCodec.decode(e.payload());
            replay.apply(te.header(), te.txn());
            stats.committed++;
            if (te.header().sessionId() == 0 && te.txn() instanceof dev.zkr.tree.Txn.DeleteNode d
                    && d.path().startsWith("/t")) {
                stats.ttlDeletes++; // the leader's deletion of an expired TTL node (the sim has no containers)
            }
            String op = te.txn().getClass().getSimpleName();
            boolean changed = false;
            for (String k : keys) {
                String id = identity(replay, k);
                if (!id.equals(before.get(k))) {
                    before.put(k, id);
                    out.add(new LogEntry(e.zxid(), k, op, node(replay, k)));
                    changed = true;
                }
            }
            if (!changed) { // the log reached this zxid too (reads may be served at it)
                out.add(new LogEntry(e.zxid(), OTHER_PATHS, op, Znode.ABSENT));
            }
        }
        if (options.invariants() && replay.lastZxid() == s.current.tree.lastZxid()
                && !replay.canonicalDump().equals(s.current.tree.canonicalDump())) {
            throw new Violation("s" + s.id + ": the tree differs from a replay of its committed log");
        }
        return out;
    }

    /**
     * Every acknowledged create and setAcl is in the final committed log, with its ACL: the txn at its reply's zxid
     * creates the node or sets its ACL to what the client asked for (as stored). On an ensemble every setAcl refused
     * BadVersion or NoNode is an error txn there, and the state just before it refuses it (the node at another
     * aversion, or absent). Returns what is wrong, or null.
     */
    private String checkAclTxns(SimServer s) {
        if (acls.acked.isEmpty() && acls.refused.isEmpty()) {
            return null;
        }
        Map<Long, dev.zkr.tree.Txn> txns = new HashMap<>();
        List<String> lost = new ArrayList<>();
        Map<Long, List<SimAcls.Refused>> refusals = new HashMap<>();
        if (servers.size() > 1) {
            acls.refused.forEach(r -> refusals.computeIfAbsent(r.zxid(), z -> new ArrayList<>()).add(r));
        }
        DataTree replay = new DataTree();
        for (Entry e : committedEntries(s, s.current.replica.commitZxid())) {
            TxnCodec.Entry te = TxnCodec.decode(e.payload());
            txns.put(e.zxid(), te.txn());
            for (SimAcls.Refused r : refusals.getOrDefault(e.zxid(), List.of())) {
                dev.zkr.client.NodeAcl node = replay.getAcl(r.path());
                boolean logged = te.txn() instanceof dev.zkr.tree.Txn.Error err && err.code().name().equals(r.code())
                        && r.path().equals(err.path());
                boolean right = r.code().equals("NO_NODE") ? node == null
                        : node != null && r.aversion() != -1 && node.stat().aversion() != r.aversion();
                if (!logged || !right) {
                    lost.add(r.what() + " " + r.path() + " av" + r.aversion() + " refused " + r.code() + " at "
                            + Zxid.str(r.zxid()) + ": the committed log has " + te.txn() + " there, the node before it "
                            + (node == null ? "absent" : "at aversion " + node.stat().aversion()));
                }
            }
            refusals.remove(e.zxid());
            replay.apply(te.header(), te.txn());
        }
        refusals.values().forEach(rs -> rs.forEach(r -> lost.add(r.what() + " refused " + r.code() + " at "
                + Zxid.str(r.zxid()) + ": no such committed txn")));
        for (SimAcls.Acked a : acls.acked) {
            dev.zkr.tree.Txn t = txns.get(a.zxid());
            boolean found = a.create()
                    ? t instanceof dev.zkr.tree.Txn.CreateNode c && c.path().equals(a.path())
                            && c.acls().equals(a.acl())
                    : t instanceof dev.zkr.tree.Txn.SetAcl sa && sa.path().equals(a.path())
                            && sa.acls().equals(a.acl());
            if (!found) {
                lost.add(a.what() + " " + a.path() + " " + a.acl() + " at " + Zxid.str(a.zxid())
                        + ": the committed log has " + t);
            }
        }
        return lost.isEmpty() ? null : lost.size() + " ACL txn(s) acknowledged or refused, not so in the final"
                + " committed log: "
                + String.join("; ", lost.subList(0, Math.min(3, lost.size())));
    }

    /**
     * The committed log up to {@code commit}: {@code s}'s durable records, and with snapshots the records any server
     * applied (purged logs and SNAP installs leave gaps in every single log).
     */
    private List<Entry> committedEntries(SimServer s, long commit) {
        java.util.TreeMap<Long, Entry> all = new java.util.TreeMap<>(appliedArchive.headMap(commit, true));
        for (Entry e : s.log.durableEntries()) {
            if (e.zxid() > commit) {
                break;
            }
            all.putIfAbsent(e.zxid(), e);
        }
        return new ArrayList<>(all.values());
    }

    /** Snapshot seeds: what each running server applied since the last event goes to the archive (it is committed). */
    private void archiveApplied() {
        for (int i = 0; i < servers.size(); i++) {
            SimServer s = servers.get(i);
            if (!s.up()) {
                archivedUpTo[i] = -1;
                continue;
            }
            long applied = s.current.tree.lastZxid();
            if (applied != archivedUpTo[i]) {
                for (Entry e : s.log.entriesIn(Math.max(archivedUpTo[i], s.log.base()), applied)) {
                    appliedArchive.putIfAbsent(e.zxid(), e);
                }
                archivedUpTo[i] = applied;
            }
        }
    }

    /** Every server's durable log agrees with every other's up to the smaller of their commit points. */
    private void checkCommittedPrefixes() {
        for (SimServer a : servers) {
            for (SimServer b : servers) {
                if (a.id >= b.id) {
                    continue;
                }
                long upTo = Math.min(Math.min(a.current.replica.commitZxid(), b.current.replica.commitZxid()),
                        Math.min(a.log.trueDurableZxid(), b.log.trueDurableZxid()));
                for (Entry e : a.log.historyEntries()) {
                    if (e.zxid() > upTo) {
                        break;
                    }
                    Entry other = b.log.historyEntry(e.zxid());
                    if (other == null && (e.zxid() <= b.newestSnapshot() || e.zxid() <= b.log.base())) {
                        continue; // b got it in a snapshot (SNAP), never as a record
                    }
                    if (other == null || !other.equals(e)) {
                        throw new Violation("s" + a.id + " and s" + b.id + " differ at committed " + Zxid.str(e.zxid()));
                    }
                }
            }
        }
    }

    private static String identity(DataTree t, String path) {
        NodeData nd = t.getData(path);
        return nd == null ? "-" : nd.stat().czxid() + "/" + nd.stat().mzxid();
    }

    private static Znode node(DataTree t, String path) {
        NodeData nd = t.getData(path);
        return nd == null ? Znode.ABSENT
                : Znode.present(new String(nd.data(), StandardCharsets.UTF_8), nd.stat().version());
    }

    private void checkHistories() {
        stats.ops = history.operations().size();
        stats.indeterminate = history.indeterminate;
        stats.rounds = servers.stream().mapToLong(s -> s.rounds).sum();
        stats.lostAtCrash = servers.stream().mapToLong(s -> s.log.lostAtCrash).sum();
        stats.keptAtCrash = servers.stream().mapToLong(s -> s.log.keptAtCrash).sum();
        stats.tornTails = servers.stream().mapToLong(s -> s.log.tornAtCrash).sum();
        stats.failStops = servers.stream().mapToLong(s -> s.log.failedWrites).sum();
        stats.sessions = clients.stream().mapToLong(c -> c.sessionsOpened).sum();
        stats.elections = leaders.size();
        stats.snapInstalls = servers.stream().mapToLong(SimServer::installs).sum();
        stats.spareSnapInstalls = servers.stream().filter(x -> x.joins).mapToLong(SimServer::installs).sum();
        stats.duplicates = servers.stream().mapToLong(SimServer::duplicates).sum();
        stats.purged = servers.stream().mapToLong(x -> x.log.purged).sum();
        stats.aclCreates = acls.creates;
        stats.ttlCreates = clients.stream().mapToLong(c -> c.ttlCreates).sum();
        stats.setAcls = acls.setAcls;
        stats.getAcls = acls.getAcls;
        stats.aclSights = acls.observations;
        stats.maxDistinctAcls = servers.stream().mapToLong(x -> x.current.tree.distinctAcls()).max().orElse(0);
        SimServer s = servers.get(0);
        for (SimServer o : servers) {
            if (o.current.replica.commitZxid() > s.current.replica.commitZxid()) {
                s = o;
            }
        }
        checkCommittedPrefixes();
        List<LogEntry> log = committedLog(s);
        String aclsLost = checkAclTxns(s);
        LinearizabilityReport lin = new LinearizabilityChecker<>(new ZnodeModel(), 2_000_000)
                .check(history.operations());
        stats.linSteps = lin.steps();
        Findings sc = SequentialConsistencyChecker.check(log, history.replies());
        Findings durable = DurabilityChecker.check(log, history.replies());
        trace("end: " + stats.ops + " ops, linearizability " + lin.verdict() + ", sequential consistency "
                + sc.verdict() + ", durability " + durable.verdict());
        StringBuilder why = new StringBuilder();
        if (lin.verdict() == Verdict.VIOLATION) {
            why.append(lin.describe()).append('\n');
        }
        if (!sc.ok()) {
            why.append("sequential consistency: ").append(sc.describe()).append('\n');
        }
        if (!durable.ok()) {
            why.append("durability / FIFO: ").append(durable.describe()).append('\n');
        }
        if (aclsLost != null) {
            why.append("ACL txns vs the committed log: ").append(aclsLost).append('\n');
        }
        String twice = checkExactlyOnce(s);
        if (twice != null) {
            why.append("exactly-once: ").append(twice).append('\n');
        }
        if (why.length() > 0) {
            throw new HistoryViolation(why.toString());
        }
    }

    /**
     * Every client write is applied at most once: no (session, xid) names two txns of the committed log, and a
     * session's txns are in its xid order; and every write with a success reply is in it exactly once, at its reply's
     * zxid (docs/exactly-once.md). Returns what is wrong, or null.
     */
    private String checkExactlyOnce(SimServer s) {
        Map<String, Long> applied = new HashMap<>();
        Map<Long, Integer> lastXid = new HashMap<>();
        List<String> wrong = new ArrayList<>();
        for (Entry e : committedEntries(s, s.current.replica.commitZxid())) {
            TxnCodec.Entry te = TxnCodec.decode(e.payload());
            if (te.header().xid() == dev.zkr.tree.TxnHeader.NO_XID
                    || te.txn() instanceof dev.zkr.tree.Txn.CloseSession) {
                continue;
            }
            String key = Long.toHexString(te.header().sessionId()) + "/" + te.header().xid();
            Long before = applied.putIfAbsent(key, e.zxid());
            if (before != null) {
                wrong.add("session/xid " + key + " applied twice, at " + Zxid.str(before) + " and "
                        + Zxid.str(e.zxid()));
            }
            stats.clientTxns++;
            Integer last = lastXid.put(te.header().sessionId(), te.header().xid());
            if (last != null && te.header().xid() - last < 0) {
                stats.outOfOrder++;
                wrong.add("session/xid " + key + " applied at " + Zxid.str(e.zxid()) + " after the session's xid "
                        + last + " (out of the session's order)");
                if (!stats.outOfOrderSeeds.contains(seed)) {
                    stats.outOfOrderSeeds.add(seed);
                }
                if (stats.outOfOrder <= 3) {
                    trace("out of its session's order: " + key + " at " + Zxid.str(e.zxid()) + " after xid " + last);
                }
            }
        }
        for (SimClient c : clients) {
            long acking = c.acknowledgingSession();
            for (SimServer o : servers) {
                int kept = acking == 0 ? 0 : o.current.tree.savedReplyCount(acking);
                if (kept > SimClient.maxInFlight()) {
                    wrong.add("server " + o.id + " keeps " + kept + " replies of session 0x" + Long.toHexString(acking)
                            + ", whose client acknowledges with at most " + SimClient.maxInFlight() + " in flight");
                }
            }
            for (SimClient.Ack a : c.acks) {
                Long at = applied.get(Long.toHexString(a.sessionId()) + "/" + a.xid());
                if (at == null || at != a.zxid()) {
                    wrong.add(a.what() + " answered OK at " + Zxid.str(a.zxid()) + ", the committed log has it "
                            + (at == null ? "nowhere" : "at " + Zxid.str(at)));
                }
            }
            stats.resent += c.resent;
            stats.dropsAfterWrite += c.dropsAfterWrite;
            stats.lostWithSession += c.lostWithSession;
        }
        return wrong.isEmpty() ? null : String.join("; ", wrong.subList(0, Math.min(5, wrong.size())));
    }

    /** The end-of-run history checks failed (as opposed to an invariant after an event). */
    static final class HistoryViolation extends AssertionError {
        HistoryViolation(String message) {
            super(message);
        }
    }

    // ---- trace ---------------------------------------------------------------------------------------------------

    /** True when trace lines are kept (a replay, the determinism test): callers skip building them otherwise. */
    boolean tracing() {
        return options.fullTrace();
    }

    void trace(String line) {
        if (!options.fullTrace()) {
            return;
        }
        String l = now + " " + line;
        for (int i = 0; i < l.length(); i++) {
            traceHash = (traceHash ^ l.charAt(i)) * 0x100000001b3L;
        }
        traceHash = (traceHash ^ '\n') * 0x100000001b3L;
        fullTrace.append(l).append('\n');
        recent.addLast(l);
        if (recent.size() > RECENT_LINES) {
            recent.pollFirst();
        }
    }

    long traceHash() {
        return traceHash;
    }

    String trace() {
        return fullTrace.toString();
    }

    /** The last lines of the trace. */
    String recentTrace() {
        return String.join("\n", recent);
    }

    static String describe(Message m) {
        if (m instanceof Message.Reply r) {
            return "reply x" + r.xid() + " " + (r.code() == 0 ? "ok" : ZkException.Code.of(r.code()).name()) + " @"
                    + Zxid.str(r.zxid()) + body(r.body());
        } else if (m instanceof Message.CreateRequest c) {
            return "create x" + c.xid() + " " + c.path() + " '" + str(c.data()) + "'";
        } else if (m instanceof Message.SetDataRequest s) {
            return "setData x" + s.xid() + " " + s.path() + " '" + str(s.data()) + "' v" + s.version();
        } else if (m instanceof Message.DeleteRequest d) {
            return "delete x" + d.xid() + " " + d.path() + " v" + d.version();
        } else if (m instanceof Message.GetDataRequest g) {
            return "getData x" + g.xid() + " " + g.path();
        } else if (m instanceof Message.SyncRequest s) {
            return "sync x" + s.xid() + " " + s.path();
        } else if (m instanceof Message.CreateAclRequest c) {
            return "create x" + c.xid() + " " + c.path() + " '" + str(c.data()) + "' acl " + Arrays.toString(c.acls());
        } else if (m instanceof Message.SetAclRequest s) {
            return "setAcl x" + s.xid() + " " + s.path() + " " + Arrays.toString(s.acls()) + " av" + s.aversion();
        } else if (m instanceof Message.GetAclRequest g) {
            return "getAcl x" + g.xid() + " " + g.path();
        } else if (m instanceof Message.PingRequest p) {
            return "ping x" + p.xid();
        } else if (m instanceof Message.CloseSessionRequest c) {
            return "closeSession x" + c.xid();
        } else if (m instanceof Message.ConnectRequest c) {
            return "connect session 0x" + Long.toHexString(c.sessionId()) + " seen " + Zxid.str(c.lastZxidSeen());
        } else if (m instanceof Message.ConnectResponse c) {
            return "connected session 0x" + Long.toHexString(c.sessionId());
        } else if (m instanceof Message.ConnectRefused c) {
            return "refused " + ZkException.Code.of(c.code()).name();
        }
        return m.getClass().getSimpleName();
    }

    private static String body(Message.Body b) {
        if (b instanceof Message.DataBody d) {
            return " '" + str(d.data()) + "' v" + d.stat().version();
        } else if (b instanceof Message.StatBody s && s.stat() != null) {
            return " v" + s.stat().version();
        } else if (b instanceof Message.CreateBody c) {
            return " " + c.path();
        } else if (b instanceof Message.AclBody a) {
            return " " + Arrays.toString(a.acls()) + " av" + a.stat().aversion();
        }
        return "";
    }

    private static String str(byte[] b) {
        return b == null ? "" : new String(b, StandardCharsets.UTF_8);
    }
}
