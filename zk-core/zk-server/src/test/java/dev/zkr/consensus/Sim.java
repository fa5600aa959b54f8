package dev.zkr.consensus;

import dev.zkr.consensus.ReplicaMessage.Ack;
import dev.zkr.consensus.ReplicaMessage.SyncStart;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.PriorityQueue;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.function.BooleanSupplier;
import java.util.stream.IntStream;

/**
 * Deterministic simulation of N replicas (docs/testing.md, Consensus simulator): per-link FIFO network that drops,
 * duplicates, delays and partitions (also one-way); a {@link SimDisk} per replica whose fsyncs complete after a seeded
 * delay and which loses its unsynced tail (sometimes torn) on a crash; crash/restart, disk stalls, full disks, tiny log
 * retention. Each replica is driven exactly as a server would drive it (persist meta, truncate, install, append async,
 * send, apply, advance). The invariants (docs/testing.md, Consensus simulator) are checked as each event's effects
 * happen. One seed drives every choice; the trace (one line per event with an effect) hashes to the same value on every
 * run of a seed.
 */
final class Sim {
    static final int TICK = 10;

    /**
     * What the run does besides what a script asks. {@code slowLeaderDisk} adds a compound fault to the random
     * mix (a quarter of the faults): the leader's disk stalls while its followers' disks commit, then it loses its
     * leadership alive (isolated, paused or handing over), so it comes back as a follower whose commit point is ahead
     * of its own disk ({@code Follower.requestSync}); off, the random runs draw exactly as before.
     */
    record Options(int nodes, boolean randomFaults, boolean clients, boolean tinyRetention, long faultUnits,
                   boolean fullTrace, int spares, boolean membershipChanges, boolean slowLeaderDisk) {
        Options(int nodes, boolean randomFaults, boolean clients, boolean tinyRetention, long faultUnits,
                boolean fullTrace) {
            this(nodes, randomFaults, clients, tinyRetention, faultUnits, fullTrace, 0, false, false);
        }

        static Options scripted(int nodes) {
            return new Options(nodes, false, false, false, 0, true);
        }

        /** {@code nodes} voters plus {@code spares} servers that are not members yet (ids after the voters'). */
        static Options scripted(int nodes, int spares) {
            return new Options(nodes, false, false, false, 0, true, spares, false, false);
        }

        static Options random(int nodes, boolean fullTrace) {
            return new Options(nodes, true, true, true, 4000, fullTrace);
        }

        /** As {@link #random}, with {@code spares} fresh servers and random membership changes during the faults. */
        static Options randomMembership(int nodes, int spares, boolean fullTrace) {
            return new Options(nodes, true, true, true, 4000, fullTrace, spares, true, false);
        }

        /**
         * As {@link #random}, with the slow-leader-disk compound fault in the mix: a former leader ahead of its own
         * disk in most seeds of 3 or 5 replicas (docs/testing.md, Mutations: {@code syncAheadOfDisk}).
         */
        static Options randomSlowLeaderDisk(int nodes, boolean fullTrace) {
            return new Options(nodes, true, true, true, 4000, fullTrace, 0, false, true);
        }
    }

    /** Figures of one run. */
    static final class Stats {
        long events;
        long elections;
        long diff;
        long trunc;
        long snap;
        long installsAborted;
        long crashes;
        long crashesInSync;
        long torn;
        long proposed;
        long acknowledged;
        long reads;
        long readsAnswered;
        long faults;
        // how often each regression shape occurred (docs/testing.md, Regression scenarios)
        long leaderCrashedWithUncommitted;
        long leaderSteppedDown;
        long leaderNeverInService;
        long ackSkippedEpochRecord;
        long resyncs;
        long uncommittedTailAtRestart;
        long readsRefused;
        long membershipChanges;
        long membershipRefused;
        long leadersRemoved;
        /** Leaders that stepped down alive with their commit point ahead of their own disk. */
        long leaderSteppedDownAheadOfDisk;

        void add(Stats o) {
            events += o.events;
            elections += o.elections;
            diff += o.diff;
            trunc += o.trunc;
            snap += o.snap;
            installsAborted += o.installsAborted;
            crashes += o.crashes;
            crashesInSync += o.crashesInSync;
            torn += o.torn;
            proposed += o.proposed;
            acknowledged += o.acknowledged;
            reads += o.reads;
            readsAnswered += o.readsAnswered;
            faults += o.faults;
            leaderCrashedWithUncommitted += o.leaderCrashedWithUncommitted;
            leaderSteppedDown += o.leaderSteppedDown;
            leaderNeverInService += o.leaderNeverInService;
            ackSkippedEpochRecord += o.ackSkippedEpochRecord;
            resyncs += o.resyncs;
            uncommittedTailAtRestart += o.uncommittedTailAtRestart;
            readsRefused += o.readsRefused;
            membershipChanges += o.membershipChanges;
            membershipRefused += o.membershipRefused;
            leadersRemoved += o.leadersRemoved;
            leaderSteppedDownAheadOfDisk += o.leaderSteppedDownAheadOfDisk;
        }

        @Override
        public String toString() {
            return "events=" + events + " elections=" + elections + " DIFF=" + diff + " TRUNC=" + trunc + " SNAP="
                    + snap + " (aborted " + installsAborted + ") crashes=" + crashes + " crashesInSync=" + crashesInSync + " torn=" + torn
                    + " faults=" + faults + " proposed=" + proposed + " acknowledged=" + acknowledged
                    + " indeterminate=" + (proposed - acknowledged) + " reads=" + reads + "/" + readsAnswered
                    + " | shapes: leaderDiesBeforeCommit=" + leaderCrashedWithUncommitted
                    + " oldLeaderStepsDown=" + leaderSteppedDown + " leaderNeverInService(two elections)="
                    + leaderNeverInService + " ackBeyondEpochRecord(4685)=" + ackSkippedEpochRecord
                    + " resyncs(4925)=" + resyncs + " uncommittedTailAtRestart(1154)=" + uncommittedTailAtRestart
                    + " readsRefused(1675)=" + readsRefused
                    + " leaderSteppedDownAheadOfDisk=" + leaderSteppedDownAheadOfDisk
                    + (membershipChanges + membershipRefused == 0 ? "" : " | membership: changes=" + membershipChanges
                    + " refused=" + membershipRefused + " leadersRemoved=" + leadersRemoved);
        }
    }

    /** One simulated server. */
    final class Node {
        final int id;
        final SimDisk disk;
        Replica replica;
        boolean up = true;
        /** SIGSTOP-like pause: its process handles nothing; deliveries and disk notices wait in order. */
        boolean paused;
        final List<Runnable> pausedWork = new ArrayList<>();
        int incarnation;
        long applied;
        long marked;
        boolean diskStalled;
        boolean diskFull;
        final List<Long> heldFsyncs = new ArrayList<>();
        RoleInfo role;
        long lastSyncAt = -1_000_000;
        long lastAck;
        long ackEpoch;
        long infoEpoch = -1;
        boolean wasInService;

        Node(int id) {
            this.id = id;
            this.disk = new SimDisk("n" + id);
        }

        Replica replica() {
            return replica;
        }
    }

    private record Ev(long time, long seq, Runnable action) {}

    private record Proposal(int node, long epoch, long zxid, byte[] payload) {}

    final long seed;
    final Options options;
    final Mutations mutations;
    final SplittableRandom random;
    final Node[] nodes;
    final Stats stats = new Stats();
    private final List<Integer> members;
    private final PriorityQueue<Ev> queue = new PriorityQueue<>((a, b) -> a.time != b.time
            ? Long.compare(a.time, b.time) : Long.compare(a.seq, b.seq));
    long now;
    private long evSeq;
    private final long[][] linkGen;
    private final long[][] linkLast;
    final boolean[][] blocked;
    double dropRate;
    double dupRate;
    /**
     * Whether a leader's membership change before its EPOCH record committed fails the run at once; a script turns it
     * off to show what that change leads to.
     */
    boolean checkChangesAfterEpochCommit = true;
    /** Script hook: messages it returns true for are dropped. */
    MessageFilter dropFilter = (from, to, m) -> false;
    /** Script hook: messages it returns true for are held until {@link #releaseHeld()}. */
    MessageFilter holdFilter = (from, to, m) -> false;
    private final List<Object[]> held = new ArrayList<>();

    // global knowledge
    final TreeMap<Long, Entry> committed = new TreeMap<>();
    /** The membership records of the committed sequence (docs/membership.md); the static members before them. */
    final TreeMap<Long, Membership> committedMemberships = new TreeMap<>();
    final Membership initialMembership;
    /** The epoch whose leader committed each entry (leader completeness binds leaders of later epochs). */
    private final Map<Long, Long> commitEpoch = new HashMap<>();
    private final Map<Long, Integer> leaders = new HashMap<>();
    private final Map<Long, Long> readRequests = new HashMap<>();
    final Map<Long, ReadState> readAnswers = new HashMap<>();
    private final ArrayDeque<Proposal> open = new ArrayDeque<>();
    final List<Proposal> acknowledgedOps = new ArrayList<>();
    private long readCtx;
    private long opCounter;

    // trace
    private final StringBuilder trace;
    private long hash = 0xcbf29ce484222325L;
    private String current = "";

    interface MessageFilter {
        boolean test(int from, int to, ReplicaMessage m);
    }

    Sim(long seed, Options options) {
        this(seed, options, Mutations.NONE);
    }

    Sim(long seed, Options options, Mutations mutations) {
        this.seed = seed;
        this.options = options;
        this.mutations = mutations;
        this.random = new SplittableRandom(seed);
        this.members = IntStream.range(0, options.nodes()).boxed().toList();
        this.initialMembership = Membership.ofVoters(members);
        int n = options.nodes() + options.spares();
        this.nodes = new Node[n];
        this.linkGen = new long[n][n];
        this.linkLast = new long[n][n];
        this.blocked = new boolean[n][n];
        this.trace = options.fullTrace() ? new StringBuilder() : null;
        for (int i = 0; i < n; i++) {
            nodes[i] = new Node(i);
        }
        for (int i = 0; i < n; i++) {
            start(nodes[i]);
            int id = i;
            schedule(1 + random.nextInt(TICK), () -> tickLoop(id));
        }
        drive();
        if (options.clients()) {
            schedule(5, this::clientLoop);
            schedule(50, this::readLoop);
        }
        if (options.randomFaults()) {
            schedule(100 + random.nextInt(300), this::faultLoop);
            schedule(options.faultUnits(), this::endFaults);
        }
        if (options.tinyRetention()) {
            schedule(100, this::snapshotLoop);
        }
        if (options.membershipChanges()) {
            schedule(200 + random.nextInt(300), this::membershipLoop);
        }
    }

    // ---------------------------------------------------------------- running

    void run(long units) {
        long end = now + units;
        while (!queue.isEmpty() && queue.peek().time <= end) {
            stepOne();
        }
        now = end;
    }

    /** Runs until {@code done} holds (checked after every event), failing after {@code maxUnits}. */
    void runUntil(BooleanSupplier done, long maxUnits, String what) {
        long end = now + maxUnits;
        while (!done.getAsBoolean()) {
            if (queue.isEmpty() || queue.peek().time > end) {
                throw fail("not reached within " + maxUnits + " units: " + what);
            }
            stepOne();
        }
    }

    private void stepOne() {
        Ev ev = queue.poll();
        now = ev.time;
        stats.events++;
        ev.action.run();
        drive();
    }

    void schedule(long delay, Runnable action) {
        queue.add(new Ev(now + delay, ++evSeq, action));
    }

    /** Executes every node's Ready until none has one. */
    private void drive() {
        boolean again = true;
        while (again) {
            again = false;
            for (Node n : nodes) {
                if (n.up && n.replica.hasReady()) {
                    execute(n);
                    again = true;
                }
            }
        }
    }

    private void tickLoop(int id) {
        Node n = nodes[id];
        if (n.up && !n.paused) {
            current = "tick";
            guard(n, () -> n.replica.tick());
        }
        schedule(TICK, () -> tickLoop(id));
    }

    /** Runs {@code r} on node {@code n}'s replica now, or when its pause ends. */
    private void onNode(Node n, Runnable r) {
        if (n.paused) {
            n.pausedWork.add(() -> guard(n, r));
        } else {
            guard(n, r);
        }
    }

    void pause(int id, long units) {
        Node n = nodes[id];
        if (!n.up || n.paused) {
            return;
        }
        n.paused = true;
        int inc = n.incarnation;
        line("n" + id + " PAUSE " + units);
        schedule(units, () -> {
            if (n.incarnation == inc) {
                resume(n);
            }
        });
    }

    private void resume(Node n) {
        if (!n.paused) {
            return;
        }
        n.paused = false;
        line("n" + n.id + " RESUME with " + n.pausedWork.size() + " queued");
        List<Runnable> work = new ArrayList<>(n.pausedWork);
        n.pausedWork.clear();
        int inc = n.incarnation;
        for (Runnable r : work) {
            if (!n.up || n.incarnation != inc) {
                break; // it crashed (e.g. fail-stop on a full disk) while working through its backlog
            }
            r.run();
            drive();
        }
    }

    /**
     * The TCP connection between two live nodes resets: in-flight messages are lost; both sides see it, or only
     * {@code a} (the other side's reconnect is silent).
     */
    void resetLink(int a, int b) {
        resetLink(a, b, true);
    }

    void resetLink(int a, int b, boolean bothSee) {
        Node na = nodes[a];
        Node nb = nodes[b];
        if (!na.up || !nb.up || a == b) {
            return;
        }
        line("reset n" + a + "<->n" + b + (bothSee ? "" : " seen by n" + a + " only"));
        linkGen[a][b]++;
        linkGen[b][a]++;
        linkLast[a][b] = 0;
        linkLast[b][a] = 0;
        onNode(na, () -> na.replica.peerDown(b));
        if (bothSee) {
            onNode(nb, () -> nb.replica.peerDown(a));
        }
        int ia = na.incarnation;
        int ib = nb.incarnation;
        schedule(5 + random.nextInt(50), () -> {
            if (na.up && nb.up && na.incarnation == ia && nb.incarnation == ib) {
                onNode(na, () -> na.replica.peerUp(b));
                if (bothSee) {
                    onNode(nb, () -> nb.replica.peerUp(a));
                }
            }
        });
    }

    private void guard(Node n, Runnable r) {
        try {
            r.run();
        } catch (ConsensusViolation v) {
            throw fail("n" + n.id + " core reported: " + v.getMessage());
        }
    }

    // ---------------------------------------------------------------- the driver (what a server does with a Ready)

    private void execute(Node n) {
        Replica r = n.replica;
        Ready rd = r.ready();
        if (tracing()) {
            line("n" + n.id + " " + current + ": " + rd);
        }
        current = "";
        if (rd.meta() != null) {
            n.disk.persistMeta(rd.meta());
        }
        if (rd.truncateAfter() != Zxid.NONE) {
            n.disk.truncateAfter(rd.truncateAfter());
        }
        long aborted = Zxid.NONE;
        if (rd.install() != Zxid.NONE) {
            if (rd.install() != 0 && !committed.containsKey(rd.install())) {
                throw fail("n" + n.id + " installs snapshot " + Zxid.str(rd.install()) + " that is not committed");
            }
            int sender = rd.role().leaderId();
            if (sender < 0 || !nodes[sender].up || random.nextInt(4) == 0) {
                // the transfer fails (its sender died, or lost the file): the driver gives up after advance()
                aborted = rd.install();
                stats.installsAborted++;
                line("n" + n.id + " gives up installing " + Zxid.str(aborted) + " (sender n" + sender + ")");
            } else {
                scheduleFsync(n, n.disk.install(rd.install(), committedMembershipAt(rd.install())));
            }
        }
        if (!rd.append().isEmpty() && aborted == Zxid.NONE) {
            if (n.diskFull) {
                r.advance();
                line("n" + n.id + " disk full: fail-stop (P8)");
                crash(n, false);
                return;
            }
            scheduleFsync(n, n.disk.append(rd.append()));
        }
        for (Envelope e : rd.messages()) {
            if (e.message() instanceof Ack a) {
                if (!n.disk.durableImage().covers(a.zxid())) {
                    throw fail("n" + n.id + " acks " + Zxid.str(a.zxid()) + " which its disk has not made durable");
                }
                long epochRecord = Zxid.of(a.epoch(), 0);
                if (n.ackEpoch == a.epoch() && n.lastAck < epochRecord && a.zxid() > epochRecord) {
                    stats.ackSkippedEpochRecord++;
                }
                n.ackEpoch = a.epoch();
                n.lastAck = a.zxid();
            }
            if (e.message() instanceof ReplicaMessage.HeartbeatAck h && h.ackZxid() != Zxid.NONE
                    && !n.disk.durableImage().covers(h.ackZxid())) {
                throw fail("n" + n.id + " acks " + Zxid.str(h.ackZxid()) + " (heartbeat) which is not durable");
            }
            if (e.message() instanceof ReplicaMessage.FollowerInfo fi) {
                if (n.infoEpoch == fi.epoch()) {
                    stats.resyncs++;
                }
                n.infoEpoch = fi.epoch();
            }
            if (e.message() instanceof SyncStart s) {
                switch (s.mode()) {
                    case DIFF -> stats.diff++;
                    case TRUNC -> stats.trunc++;
                    case SNAP -> stats.snap++;
                }
                nodes[e.to()].lastSyncAt = now;
            }
            send(n.id, e.to(), e.message());
        }
        RoleInfo role = rd.role();
        // a leader whose removal committed steps down in the Ready that carries that commit
        boolean ledThisEpoch = n.role != null && n.role.role() == Role.LEADER && n.role.epoch() == role.epoch();
        if (role.role() == Role.LEADER && (n.role == null || n.role.role() != Role.LEADER
                || n.role.epoch() != role.epoch())) {
            becameLeader(n, role.epoch());
            n.wasInService = false;
        }
        if (n.role != null && n.role.role() == Role.LEADER && role.role() != Role.LEADER) {
            leadershipEnded(n);
            if (role.epoch() == n.role.epoch()) {
                stats.leaderSteppedDown++;
            }
            if (rd.commit() > r.durableZxid()) {
                stats.leaderSteppedDownAheadOfDisk++;
            }
        }
        n.wasInService |= role.inService();
        n.role = role;
        if (rd.commit() > n.applied) {
            // a follower may commit before its leader counts (LeaderDurable: its disk and the leader's are a
            // quorum); what it commits beyond the sequence joins it under the same checks (majority durable, agreeing)
            if (role.role() == Role.LEADER || ledThisEpoch
                    || committed.isEmpty() || rd.commit() > committed.lastKey()) {
                recordCommit(n, rd.commit());
            }
            apply(n, rd.commit());
        }
        if (rd.commit() > n.marked) {
            n.marked = rd.commit();
            n.disk.mark(rd.commit());
        }
        for (ReadState s : rd.readStates()) {
            checkRead(n, s);
            if (s.refused()) {
                stats.readsRefused++;
            }
        }
        checkEpochs(n);
        checkMembership(n, r);
        if (rd.role().role() == Role.LEADER && checkChangesAfterEpochCommit) {
            for (Entry e : rd.append()) {
                if (rd.commit() < Zxid.of(Zxid.epoch(e.zxid()), 0) && MembershipCodec.RAW.decode(e.payload()) != null) {
                    throw fail("n" + n.id + " changes the membership at " + Zxid.str(e.zxid()) + " before its EPOCH"
                            + " record committed (the single-server-change bug of Raft's original proposal)");
                }
            }
        }
        r.advance();
        if (aborted != Zxid.NONE) {
            long s = aborted;
            guard(n, () -> r.installAborted(s)); // the records that followed the snapshot are dropped with it
        }
    }

    private void scheduleFsync(Node n, long seq) {
        int inc = n.incarnation;
        long delay = 2 + random.nextInt(11);
        if (random.nextInt(50) == 0) {
            delay += random.nextInt(80);
        }
        schedule(delay, () -> {
            if (n.incarnation != inc || !n.up) {
                return;
            }
            if (n.diskStalled) {
                n.heldFsyncs.add(seq);
                return;
            }
            if (n.paused) {
                n.pausedWork.add(() -> fsyncDone(n, seq));
                return;
            }
            fsyncDone(n, seq);
        });
    }

    private void fsyncDone(Node n, long seq) {
        current = "fsync";
        List<Long> installs = n.disk.completeThrough(seq);
        Replica r = n.replica;
        guard(n, () -> {
            for (long s : installs) {
                if (r.installing == s) {
                    n.applied = Math.max(n.applied, s); // the snapshot is loaded (P3 d)
                }
                r.snapshotInstalled(s);
            }
            long d = n.disk.durableLast();
            if (r.installing == Zxid.NONE && d > r.durableZxid() && d <= r.lastAppendedZxid()) {
                r.localDurable(d);
            }
        });
    }

    private void leadershipEnded(Node n) {
        if (!n.wasInService) {
            stats.leaderNeverInService++;
        }
    }

    private void becameLeader(Node n, long epoch) {
        stats.elections++;
        if (options.membershipChanges() && faultsOn && random.nextBoolean()) {
            int inc = n.incarnation;
            schedule(random.nextInt(3), () -> {
                if (n.up && n.incarnation == inc && !n.paused && n.role != null && n.role.role() == Role.LEADER
                        && n.role.epoch() == epoch) {
                    tryChange(n.id);
                }
            });
        }
        Integer other = leaders.putIfAbsent(epoch, n.id);
        if (other != null && other != n.id) {
            throw fail("two leaders in epoch " + epoch + ": n" + other + " and n" + n.id);
        }
        SimDisk.Image log = n.disk.volatileImage();
        for (Entry e : committed.tailMap(log.base, false).values()) {
            if (commitEpoch.get(e.zxid()) < epoch && !e.equals(log.find(e.zxid()))) {
                throw fail("leader completeness: n" + n.id + " leads epoch " + epoch + " without committed " + e);
            }
        }
    }

    /**
     * A leader advanced its commit point (or a follower beyond the sequence): its log up to it joins the global
     * committed sequence.
     */
    private void recordCommit(Node n, long c) {
        SimDisk.Image log = n.disk.volatileImage();
        long from = Math.max(n.applied, log.base);
        for (Entry e : log.entries.subList(log.indexAfter(from), log.indexAfter(c))) {
            Entry known = committed.get(e.zxid());
            if (known != null && !known.equals(e) || known == null && !committed.isEmpty()
                    && e.zxid() < committed.lastKey()) {
                throw fail("n" + n.id + " commits " + e + " against the committed sequence (" + known + ", last "
                        + Entry.class.getSimpleName() + " " + Zxid.str(committed.lastKey()) + ")");
            }
            if (committed.put(e.zxid(), e) == null) {
                commitEpoch.put(e.zxid(), Zxid.epoch(c));
                Membership m = MembershipCodec.RAW.decode(e.payload());
                if (m != null) {
                    committedMemberships.put(e.zxid(), m);
                    line("membership " + m + " committed at " + Zxid.str(e.zxid()));
                }
            }
        }
        Entry mine = log.find(c);
        // on a majority of the voters the leader counts with: its current membership, pending change included
        Membership m = n.replica.membership();
        int votersDurable = 0;
        for (int v : m.voters()) {
            SimDisk.Image d = nodes[v].disk.durableImage();
            if (c <= d.snapshot || mine != null && mine.equals(d.find(c))) {
                votersDurable++;
            }
        }
        if (votersDurable < m.voters().size() / 2 + 1) {
            throw fail("n" + n.id + " committed " + Zxid.str(c) + " durable on only " + votersDurable + " of the voters "
                    + m.voters());
        }
        for (var it = open.iterator(); it.hasNext(); ) {
            Proposal p = it.next();
            if (p.node() == n.id && p.zxid() <= c && Zxid.epoch(p.zxid()) == Zxid.epoch(c)) {
                Entry e = committed.get(p.zxid());
                if (e == null || !Arrays.equals(e.payload(), p.payload())) {
                    throw fail("acknowledged op " + Zxid.str(p.zxid()) + " is not in the committed sequence");
                }
                acknowledgedOps.add(p);
                stats.acknowledged++;
                it.remove();
            }
        }
    }

    /** Applies committed records up to {@code c}: they must be exactly the global committed sequence. */
    private void apply(Node n, long c) {
        SimDisk.Image log = n.disk.volatileImage();
        if (n.applied < log.base) {
            throw fail("n" + n.id + " applied " + Zxid.str(n.applied) + " behind its log base " + Zxid.str(log.base));
        }
        List<Entry> mine = log.entries.subList(log.indexAfter(n.applied), log.indexAfter(c));
        NavigableMap<Long, Entry> expected = committed.subMap(n.applied, false, c, true);
        if (!new ArrayList<>(expected.values()).equals(mine)) {
            throw fail("n" + n.id + " applies " + mine + " but the committed sequence there is " + expected.values());
        }
        n.applied = c;
    }

    private void checkRead(Node n, ReadState s) {
        Long required = readRequests.remove(s.ctx());
        if (required == null) {
            throw fail("n" + n.id + " answered read " + s.ctx() + " twice or unasked");
        }
        readAnswers.put(s.ctx(), s);
        if (!s.refused()) {
            stats.readsAnswered++;
            if (s.readZxid() < required) {
                throw fail("n" + n.id + " read point " + Zxid.str(s.readZxid()) + " misses committed "
                        + Zxid.str(required) + " (stale read, ZOOKEEPER-1675)");
            }
        }
    }

    /** The committed membership in force at {@code zxid} (a committed point). */
    Membership committedMembershipAt(long zxid) {
        var e = committedMemberships.floorEntry(zxid);
        return e == null ? initialMembership : e.getValue();
    }

    /**
     * Every replica's membership history is a prefix-consistent view of the committed one: its committed membership is
     * the committed sequence's at its commit point, and its current one is its own log's last record's (truncation
     * undoes a change). A leader whose removal committed no longer leads.
     */
    private void checkMembership(Node n, Replica r) {
        if (committedMemberships.isEmpty() && options.spares() == 0) {
            return;
        }
        Membership committedHere = committedMembershipAt(Math.min(r.commitZxid(), committedUpTo()));
        if (r.commitZxid() <= committedUpTo() && !r.committedMembership().equals(committedHere)) {
            throw fail("n" + n.id + " has committed membership " + r.committedMembership() + " at "
                    + Zxid.str(r.commitZxid()) + " but the committed sequence says " + committedHere);
        }
        Membership inLog = n.disk.lastMembership(initialMembership);
        if (r.installing == Zxid.NONE && !r.membership().equals(inLog)) {
            throw fail("n" + n.id + " uses membership " + r.membership() + " but its log says " + inLog);
        }
        if (r.roleInfo().role() == Role.LEADER && !r.membership().isVoter(n.id)
                && !r.committedMembership().isVoter(n.id)) {
            throw fail("n" + n.id + " still leads epoch " + r.roleInfo().epoch() + " after its removal committed ("
                    + r.committedMembership() + ")");
        }
    }

    private long committedUpTo() {
        return committed.isEmpty() ? 0 : committed.lastKey();
    }

    private void checkEpochs(Node n) {
        long accepted = n.disk.meta().acceptedEpoch();
        if (Zxid.epoch(n.disk.durableImage().last()) > accepted) {
            throw fail("n" + n.id + " durable log " + Zxid.str(n.disk.durableImage().last())
                    + " ahead of accepted epoch " + accepted);
        }
        if (Zxid.epoch(n.disk.volatileImage().last()) > n.replica.roleInfo().epoch()) {
            throw fail("n" + n.id + " log ahead of its epoch");
        }
    }

    // ---------------------------------------------------------------- network

    private void send(int from, int to, ReplicaMessage m) {
        if (!nodes[to].up || blocked[from][to] || dropFilter.test(from, to, m)
                || dropRate > 0 && random.nextDouble() < dropRate) {
            return;
        }
        if (holdFilter.test(from, to, m)) {
            held.add(new Object[] {from, to, m});
            return;
        }
        int copies = dupRate > 0 && random.nextDouble() < dupRate ? 2 : 1;
        for (int i = 0; i < copies; i++) {
            long delay = 1 + random.nextInt(4);
            if (random.nextInt(50) == 0) {
                delay += random.nextInt(60);
            }
            long at = Math.max(now + delay, linkLast[from][to]);
            linkLast[from][to] = at;
            long gen = linkGen[from][to];
            queue.add(new Ev(at, ++evSeq, () -> deliver(from, to, m, gen)));
        }
    }

    private void deliver(int from, int to, ReplicaMessage m, long gen) {
        Node n = nodes[to];
        if (gen != linkGen[from][to] || !n.up || blocked[from][to]) {
            return;
        }
        if (n.paused) {
            n.pausedWork.add(() -> deliver(from, to, m, gen));
            return;
        }
        if (tracing()) {
            current = from + ">" + to + " " + m;
        }
        guard(n, () -> n.replica.step(from, m));
    }

    /** Delivers the held messages now, in the order they were sent. */
    void releaseHeld() {
        List<Object[]> h = new ArrayList<>(held);
        held.clear();
        MessageFilter keep = holdFilter;
        holdFilter = (f, t, m) -> false;
        for (Object[] x : h) {
            send((Integer) x[0], (Integer) x[1], (ReplicaMessage) x[2]);
        }
        holdFilter = keep;
    }

    /** Delivers the held messages that {@code which} picks, in the order they were sent; the others stay held. */
    void releaseHeld(MessageFilter which) {
        List<Object[]> picked = new ArrayList<>();
        for (java.util.Iterator<Object[]> it = held.iterator(); it.hasNext(); ) {
            Object[] x = it.next();
            if (which.test((Integer) x[0], (Integer) x[1], (ReplicaMessage) x[2])) {
                picked.add(x);
                it.remove();
            }
        }
        MessageFilter keep = holdFilter;
        holdFilter = (f, t, m) -> false;
        for (Object[] x : picked) {
            send((Integer) x[0], (Integer) x[1], (ReplicaMessage) x[2]);
        }
        holdFilter = keep;
    }

    void dropHeld() {
        held.clear();
    }

    // ---------------------------------------------------------------- faults

    void crash(int id) {
        crash(nodes[id], true);
        drive();
    }

    /** Crash node {@code id} with its last unsynced append half on disk (torn tail). */
    void crashTorn(int id) {
        crash(nodes[id], true, true);
        drive();
    }

    private void crash(Node n, boolean mayTear) {
        crash(n, mayTear, false);
    }

    private void crash(Node n, boolean mayTear, boolean tearLast) {
        if (!n.up) {
            return;
        }
        stats.crashes++;
        if (n.replica.installing != Zxid.NONE || now - n.lastSyncAt < 3 * TICK) {
            stats.crashesInSync++;
        }
        boolean torn = tearLast ? n.disk.crashTearingLastAppend()
                : n.disk.crash(mayTear && options.randomFaults() ? random : null);
        if (torn) {
            stats.torn++;
        }
        line("n" + n.id + " CRASH" + (torn ? " (unsynced writes partly kept)" : ""));
        if (n.role != null && n.role.role() == Role.LEADER) {
            leadershipEnded(n);
            if (n.replica.lastAppendedZxid() > n.replica.commitZxid()) {
                stats.leaderCrashedWithUncommitted++;
            }
        }
        n.up = false;
        n.paused = false;
        n.pausedWork.clear();
        n.replica = null;
        n.incarnation++;
        n.heldFsyncs.clear();
        n.role = null;
        for (Node o : nodes) {
            linkGen[n.id][o.id]++;
            linkGen[o.id][n.id]++;
            linkLast[n.id][o.id] = 0;
            linkLast[o.id][n.id] = 0;
            if (o.up) {
                onNode(o, () -> o.replica.peerDown(n.id));
            }
        }
    }

    void restart(int id) {
        Node n = nodes[id];
        if (n.up) {
            return;
        }
        start(n);
        drive();
    }

    private void start(Node n) {
        ReplicaConfig config = new ReplicaConfig(n.id, members, 10, 2, 2, random.split());
        try {
            n.replica = new Replica(config, n.disk, n.disk.meta(), mutations);
        } catch (ConsensusViolation v) {
            throw fail("n" + n.id + " refuses to start: " + v.getMessage());
        }
        n.up = true;
        n.marked = n.disk.volatileImage().commitMark;
        long snap = n.disk.snapshotZxid();
        if (snap != 0 && !committed.containsKey(snap)) {
            throw fail("n" + n.id + " snapshot " + Zxid.str(snap) + " is not committed");
        }
        n.applied = snap;
        line("n" + n.id + " START log=" + Zxid.str(n.disk.lastZxid()) + " base=" + Zxid.str(snap) + " meta="
                + n.disk.meta() + " commit=" + Zxid.str(n.replica.commitZxid()));
        if (n.disk.lastZxid() > n.replica.commitZxid()) {
            stats.uncommittedTailAtRestart++;
        }
        apply(n, n.replica.commitZxid()); // recovery applies up to the commit mark only (P7)
        for (Node o : nodes) {
            if (o != n && !o.up) {
                n.replica.peerDown(o.id);
            } else if (o != n && o.replica != null) {
                onNode(o, () -> o.replica.peerUp(n.id));
            }
        }
    }

    void isolate(int id) {
        for (int o = 0; o < nodes.length; o++) {
            if (o != id) {
                blocked[id][o] = true;
                blocked[o][id] = true;
            }
        }
        line("isolate n" + id);
    }

    /** Cuts every link between {@code side} and the others. */
    void partition(int... side) {
        boolean[] in = new boolean[nodes.length];
        for (int s : side) {
            in[s] = true;
        }
        for (int a = 0; a < nodes.length; a++) {
            for (int b = 0; b < nodes.length; b++) {
                if (in[a] != in[b]) {
                    blocked[a][b] = true;
                }
            }
        }
        line("partition " + Arrays.toString(side));
    }

    void heal() {
        for (boolean[] row : blocked) {
            Arrays.fill(row, false);
        }
        line("heal");
    }

    void stallDisk(int id, boolean stalled) {
        Node n = nodes[id];
        n.diskStalled = stalled;
        line("n" + id + " disk " + (stalled ? "stalls" : "resumes"));
        if (!stalled && n.up) {
            List<Long> h = new ArrayList<>(n.heldFsyncs);
            n.heldFsyncs.clear();
            for (long s : h) {
                fsyncDone(n, s);
            }
            drive();
        }
    }

    // ---------------------------------------------------------------- script helpers

    /** Node {@code at} sees its connection to {@code peer} close (the peer may not notice: one-sided reset). */
    void signalPeerDown(int at, int peer) {
        line("n" + at + " sees n" + peer + " down");
        guard(nodes[at], () -> nodes[at].replica.peerDown(peer));
        drive();
    }

    void campaign(int id) {
        current = "campaign";
        guard(nodes[id], () -> nodes[id].replica.campaign());
        drive();
    }

    /** Snapshot at {@code zxid} on node {@code id}'s disk and purge the log up to it (tiny retention). */
    void snapshot(int id, long zxid) {
        nodes[id].disk.snapshotAndPurge(zxid);
        line("n" + id + " snapshot+purge " + Zxid.str(zxid));
    }

    Replica replica(int id) {
        return nodes[id].replica;
    }

    List<Entry> log(int id) {
        return List.copyOf(nodes[id].disk.volatileImage().entries);
    }

    /** Whether node {@code id}'s log or snapshot holds a record with this payload. */
    boolean holds(int id, String payload) {
        byte[] b = payload.getBytes(StandardCharsets.UTF_8);
        return nodes[id].disk.volatileImage().entries.stream().anyMatch(e -> Arrays.equals(e.payload(), b))
                || committed.values().stream().anyMatch(e -> Arrays.equals(e.payload(), b)
                        && e.zxid() <= nodes[id].disk.snapshotZxid());
    }

    boolean isCommitted(String payload) {
        byte[] b = payload.getBytes(StandardCharsets.UTF_8);
        return committed.values().stream().anyMatch(e -> Arrays.equals(e.payload(), b));
    }

    long applied(int id) {
        return nodes[id].applied;
    }

    RoleInfo role(int id) {
        return nodes[id].up ? nodes[id].replica.roleInfo() : null;
    }

    // ---------------------------------------------------------------- clients and housekeeping

    /** The in-service leader with the highest epoch, or -1. */
    int leader() {
        int best = -1;
        for (Node n : nodes) {
            if (n.up && !n.paused && n.role != null && n.role.role() == Role.LEADER && n.role.inService()
                    && (best < 0 || n.role.epoch() > nodes[best].role.epoch())) {
                best = n.id;
            }
        }
        return best;
    }

    /** Proposes on node {@code id} (an in-service leader); returns the zxid. */
    long propose(int id, String payload) {
        Node n = nodes[id];
        byte[] bytes = payload.getBytes(StandardCharsets.UTF_8);
        long zxid = n.replica.propose(bytes);
        stats.proposed++;
        open.add(new Proposal(id, Zxid.epoch(zxid), zxid, bytes));
        if (tracing()) {
            current = "propose " + payload;
        }
        drive();
        return zxid;
    }

    long readIndex(int id) {
        long ctx = ++readCtx;
        stats.reads++;
        readRequests.put(ctx, committed.isEmpty() ? 0 : committed.lastKey());
        if (tracing()) {
            current = "readIndex " + ctx;
        }
        nodes[id].replica.readIndex(ctx);
        drive();
        return ctx;
    }

    private boolean clientsOn = true;

    private void clientLoop() {
        if (!clientsOn) {
            return;
        }
        int l = leader();
        if (l >= 0) {
            propose(l, "op" + ++opCounter);
        }
        schedule(1 + random.nextInt(8), this::clientLoop);
    }

    private void readLoop() {
        int id = random.nextInt(nodes.length);
        if (nodes[id].up && !nodes[id].paused) {
            readIndex(id);
        }
        schedule(20 + random.nextInt(80), this::readLoop);
    }

    private void snapshotLoop() {
        Node n = nodes[random.nextInt(nodes.length)];
        if (n.up && n.replica.installing == Zxid.NONE && n.applied > n.disk.snapshotZxid()
                && n.applied <= n.disk.lastZxid()) {
            n.disk.snapshotAndPurge(n.applied);
            line("n" + n.id + " snapshot+purge " + Zxid.str(n.applied));
        }
        schedule(50 + random.nextInt(300), this::snapshotLoop);
    }

    /** Random membership changes on the leader (during the faults): add a fresh spare, promote it, remove a member. */
    private void membershipLoop() {
        if (!faultsOn) {
            return;
        }
        int l = leader();
        if (l >= 0) {
            tryChange(l);
        }
        schedule(100 + random.nextInt(500), this::membershipLoop);
    }

    /**
     * Leader {@code l} is asked for a random change (also a leader just elected, not in service yet: it must refuse,
     * docs/membership.md).
     */
    private void tryChange(int l) {
        {
            Replica r = nodes[l].replica;
            Membership m = r.membership();
            int fresh = nextSpare();
            int kind = random.nextInt(4);
            try {
                if (!m.learners().isEmpty() && kind < 3) {
                    changeMembership(l, "promote", m.learners().get(random.nextInt(m.learners().size())));
                } else if (fresh >= 0 && m.voters().size() < 5 && kind < 2) {
                    changeMembership(l, "add", fresh);
                } else if (m.voters().size() > 1 && (m.voters().size() > 2 || kind == 3)) {
                    List<Integer> all = m.members();
                    changeMembership(l, "remove", all.get(random.nextInt(all.size())));
                }
            } catch (IllegalStateException | IllegalArgumentException e) {
                stats.membershipRefused++;
                line("n" + l + " refuses the change: " + e.getMessage());
            }
        }
    }

    /** The lowest id that has never been a member, or -1. Ids are never reused (docs/membership.md). */
    private int nextSpare() {
        for (int i = options.nodes(); i < nodes.length; i++) {
            if (!everMember[i]) {
                return i;
            }
        }
        return -1;
    }

    private final boolean[] everMember = new boolean[64];

    /** Leader {@code l} adds, promotes or removes {@code id}; returns the zxid of the membership record. */
    long changeMembership(int l, String op, int id) {
        Replica r = nodes[l].replica;
        if (tracing()) {
            current = op + " " + id;
        }
        long z;
        try {
            z = switch (op) {
                case "add" -> r.addLearner(id);
                case "promote" -> r.promoteLearner(id);
                case "remove" -> r.removeMember(id);
                default -> throw new IllegalArgumentException(op);
            };
        } catch (IllegalStateException | IllegalArgumentException e) {
            current = "";
            throw e;
        }
        everMember[id] = true;
        stats.membershipChanges++;
        if ("remove".equals(op) && id == l) {
            stats.leadersRemoved++;
        }
        line("n" + l + " " + op + " n" + id + " at " + Zxid.str(z) + ": " + r.membership());
        drive();
        return z;
    }

    private boolean faultsOn = true;

    private void faultLoop() {
        if (!faultsOn) {
            return;
        }
        stats.faults++;
        int kind = random.nextInt(options.slowLeaderDisk() ? 24 : 18);
        Node target = nodes[random.nextInt(nodes.length)];
        if (kind >= 18) {
            slowLeaderDiskThenCut(target);
        } else if (kind <= 2) {
            restartLater(target);
        } else if (kind <= 5) {
            int l = leader();
            restartLater(l >= 0 ? nodes[l] : target);
        } else if (kind <= 7) {
            int[] side = IntStream.range(0, nodes.length).filter(i -> random.nextBoolean()).toArray();
            partition(side);
            schedule(100 + random.nextInt(1200), this::heal);
        } else if (kind == 8) {
            isolate(target.id);
            schedule(100 + random.nextInt(1200), this::heal);
        } else if (kind == 9 && nodes.length > 1) {
            int other = (target.id + 1 + random.nextInt(nodes.length - 1)) % nodes.length;
            blocked[target.id][other] = true;
            line("cut n" + target.id + "->n" + other);
            schedule(100 + random.nextInt(1200), this::heal);
        } else if (kind == 10) {
            stallDisk(target.id, true);
            schedule(50 + random.nextInt(800), () -> stallDisk(target.id, false));
        } else if (kind == 11) {
            target.diskFull = true;
            line("n" + target.id + " disk full");
            schedule(100 + random.nextInt(700), () -> {
                target.diskFull = false;
                line("n" + target.id + " disk has room");
                restart(target.id);
            });
        } else if (kind == 12) {
            dropRate = 0.05;
            line("links lossy");
            schedule(100 + random.nextInt(500), () -> dropRate = 0);
        } else if (kind == 14 || kind == 15) {
            int l = leader();
            pause(kind == 14 && l >= 0 ? l : target.id, 50 + random.nextInt(500));
        } else if (kind == 16) {
            resetLink(target.id, random.nextInt(nodes.length), random.nextBoolean());
        } else if (kind == 17) {
            int l = leader();
            if (l >= 0) {
                line("n" + l + " transfers leadership");
                guard(nodes[l], () -> nodes[l].replica.transferLeadership());
            }
        } else {
            dupRate = 0.1;
            line("links duplicate");
            schedule(100 + random.nextInt(500), () -> dupRate = 0);
        }
        schedule(150 + random.nextInt(450), this::faultLoop);
    }

    /**
     * {@link Options#slowLeaderDisk}: the leader's disk (or {@code target}'s, without a leader) stalls for 300–1,200
     * units; 10–70 units later, while its followers' disks commit ahead of its own, the leader is isolated (healed
     * 150–550 units later), paused (150–550) or hands over its leadership. It steps down alive with its commit point
     * ahead of its disk and hears the next leader while the stall lasts.
     */
    private void slowLeaderDiskThenCut(Node target) {
        int l = leader();
        Node n = l >= 0 ? nodes[l] : target;
        stallDisk(n.id, true);
        schedule(300 + random.nextInt(900), () -> stallDisk(n.id, false));
        int inc = n.incarnation;
        int how = random.nextInt(3);
        long cutAfter = 10 + random.nextInt(60);
        long cutFor = 150 + random.nextInt(400);
        schedule(cutAfter, () -> {
            if (!faultsOn || !n.up || n.incarnation != inc) {
                return;
            }
            if (how == 0) {
                isolate(n.id);
                schedule(cutFor, this::heal);
            } else if (how == 1) {
                pause(n.id, cutFor);
            } else if (n.role != null && n.role.role() == Role.LEADER && !n.paused) {
                line("n" + n.id + " transfers leadership");
                guard(n, () -> n.replica.transferLeadership());
            }
        });
    }

    private void restartLater(Node n) {
        if (!n.up) {
            return;
        }
        crash(n, true);
        schedule(20 + random.nextInt(800), () -> {
            if (!n.diskFull) {
                restart(n.id);
            }
        });
    }

    private void endFaults() {
        faultsOn = false;
        for (Node n : nodes) {
            resume(n);
        }
        dropRate = 0;
        dupRate = 0;
        heal();
        for (Node n : nodes) {
            n.diskFull = false;
            if (n.diskStalled) {
                stallDisk(n.id, false);
            }
            restart(n.id);
        }
    }

    /**
     * Liveness after the faults: within {@code settle} units one in-service leader; then during {@code window}
     * units it stays leader of the same epoch, commits every proposal and every replica applies all of it.
     */
    void checkLiveness(long settle, long window) {
        runUntil(() -> leader() >= 0, settle, "an in-service leader after the faults");
        run(settle / 2);
        int l = leader();
        if (l < 0 && !committedMemberships.isEmpty()
                && committedMemberships.lastEntry().getValue().voters().size() == 2) {
            // 2 voters: a long-tail delay on the one follower's link costs the leader its quorum (check-quorum)
            // at any moment, this one included; the next election must bring one back (membership seed 8602)
            runUntil(() -> leader() >= 0, settle, "an in-service leader of 2 voters (membership seed 8602)");
            l = leader();
        }
        if (l < 0) {
            throw fail("liveness: no in-service leader after the faults ended");
        }
        long epoch = nodes[l].role.epoch();
        // with 2 voters (after membership changes) one slow link, a long-tail delay of the quiet network, costs the
        // leader its quorum within T (check-quorum): the window then asks for service, not for one leadership
        boolean twoVoters = nodes[l].replica.membership().voters().size() == 2;
        // a follower's crash and restart must not cost the leader its leadership (ZOOKEEPER-4685 class)
        if (nodes.length > 1) {
            int follower = (l + 1 + random.nextInt(nodes.length - 1)) % nodes.length;
            // unless the leader needs that voter for its quorum (2 voters, after membership changes: seed 5389)
            Membership lm = nodes[l].replica.membership();
            if (!lm.isVoter(follower) || lm.voters().size() - 1 >= lm.voters().size() / 2 + 1) {
                crash(follower);
                schedule(TICK + random.nextInt(5 * TICK), () -> restart(follower));
            }
        }
        run(window);
        if (twoVoters) {
            runUntil(() -> leader() >= 0, settle, "an in-service leader of 2 voters (membership seed 8074)");
            l = leader();
            epoch = nodes[l].role.epoch();
        }
        if (leader() != l || nodes[l].role.epoch() != epoch) {
            throw fail("liveness: leadership changed in a quiet window (n" + l + " epoch " + epoch + ")");
        }
        clientsOn = false;
        long last = nodes[l].replica.lastAppendedZxid();
        Membership m = nodes[l].replica.membership();
        runUntil(() -> Arrays.stream(nodes).allMatch(n -> n.applied >= last || !m.isMember(n.id)), window,
                "every replica applies " + Zxid.str(last));
        if (twoVoters) {
            return;
        }
        int leader = l;
        long leaderEpoch = epoch;
        if (leader() != leader || nodes[leader].role.epoch() != leaderEpoch) {
            throw fail("liveness: leadership changed in a quiet window (n" + leader + " epoch " + leaderEpoch + ")");
        }
        if (open.stream().anyMatch(p -> p.node() == leader && p.epoch() == leaderEpoch)) {
            throw fail("liveness: proposals of the stable leader left uncommitted");
        }
    }

    // ---------------------------------------------------------------- trace

    boolean tracing() {
        return trace != null;
    }

    void line(String s) {
        if (trace == null) {
            return;
        }
        String l = now + " " + s;
        for (int i = 0; i < l.length(); i++) {
            hash = (hash ^ l.charAt(i)) * 0x100000001b3L;
        }
        hash = (hash ^ '\n') * 0x100000001b3L;
        trace.append(l).append('\n');
    }

    long traceHash() {
        return hash;
    }

    /** The full trace (runs with {@code fullTrace} only; the hash covers it). */
    String trace() {
        return trace != null ? trace.toString() : "(run without trace)\n";
    }

    SimFailure fail(String message) {
        return new SimFailure("seed " + seed + " at t=" + now + ": " + message);
    }
}
