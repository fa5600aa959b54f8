package dev.zkr.consensus;

import dev.zkr.consensus.ReplicaMessage.Commit;
import dev.zkr.consensus.ReplicaMessage.Heartbeat;
import dev.zkr.consensus.ReplicaMessage.HeartbeatAck;
import dev.zkr.consensus.ReplicaMessage.PreVote;
import dev.zkr.consensus.ReplicaMessage.PreVoteAck;
import dev.zkr.consensus.ReplicaMessage.Propose;
import dev.zkr.consensus.ReplicaMessage.SyncStart;
import dev.zkr.consensus.ReplicaMessage.Vote;
import dev.zkr.consensus.ReplicaMessage.VoteAck;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.random.RandomGenerator;

/**
 * One member of a Zab ensemble as a pure state machine (docs/replication.md, The core and its driver;
 * etcd-io/raft's RawNode is the model). Inputs: {@link #step}, {@link #tick}, {@link #propose}, {@link #localDurable},
 * {@link #snapshotInstalled}, {@link #peerDown}/{@link #peerUp}, {@link #readIndex}, {@link #campaign},
 * {@link #transferLeadership}, and the membership changes {@link #addLearner}, {@link #promoteLearner},
 * {@link #removeMember} (docs/membership.md). Output: {@link #ready()}, executed by the driver in the order
 * {@link Ready} gives, then {@link #advance()}; no input may arrive between the two. No threads, I/O, clock or
 * unseeded randomness. Not thread-safe.
 */
public final class Replica {
    final int id;
    final LogView log;
    final ReplicaConfig config;
    final Mutations mutations;
    final RandomGenerator random;
    final MembershipCodec codec;
    /** The membership history (docs/membership.md); what follows is derived from its current membership. */
    final MembershipLog memberships;
    Quorum quorum;
    /** Whether this replica is a voter of its current membership (see {@link #electable()}). */
    boolean voter;
    /** Every other member (voters and learners), ascending: whom a leader replicates to. */
    int[] peers;
    /** Every other voter, ascending: whom a candidate asks. */
    int[] voterPeers;

    // durable promise (consensus.meta)
    long acceptedEpoch;
    int votedFor;
    // log positions: appended (handed to the log) >= durable (reported by the disk); appended >= commit, and
    // durable >= commit except on a leader whose followers' disks committed ahead of its own (or its former leader)
    long lastAppended;
    long durable;
    long commit;
    /** Snapshot being installed (Zxid.NONE if none): appends queue behind it, durability waits for it. */
    long installing = Zxid.NONE;
    long nextSyncId;
    final Set<Integer> downPeers = new HashSet<>();
    RoleState state;

    // pending output
    private boolean metaDirty;
    private long truncateAfter = Zxid.NONE;
    private long install = Zxid.NONE;
    private final List<Entry> appends = new ArrayList<>();
    private final List<Envelope> outbox = new ArrayList<>();
    private final List<ReadState> readStates = new ArrayList<>();
    private long reportedCommit;
    private RoleInfo reportedRole;
    private Ready outstanding;

    /**
     * A replica recovered from {@code log} (everything it shows durable) and its persisted {@code meta}
     * ({@link Meta#FRESH} for an empty data directory).
     */
    public Replica(ReplicaConfig config, LogView log, Meta meta) {
        this(config, log, meta, Mutations.NONE);
    }

    Replica(ReplicaConfig config, LogView log, Meta meta, Mutations mutations) {
        this.config = config;
        this.id = config.id();
        this.log = log;
        this.mutations = mutations;
        this.random = config.random();
        this.codec = log.membershipCodec();
        Membership base = log.baseMembership();
        this.memberships = new MembershipLog(base != null ? base : Membership.ofVoters(config.members()));
        for (Entry e : log.membershipRecords()) {
            memberships.appended(e.zxid(), codec.decode(e.payload()));
        }
        applyMembership();
        this.acceptedEpoch = meta.acceptedEpoch();
        this.votedFor = meta.votedFor();
        this.lastAppended = log.lastZxid();
        this.durable = lastAppended;
        if (Zxid.epoch(lastAppended) > acceptedEpoch) {
            throw new ConsensusViolation("log ends at " + Zxid.str(lastAppended) + " beyond accepted epoch "
                    + acceptedEpoch);
        }
        long recovered = Math.max(log.commitMark(), log.snapshotZxid());
        this.commit = mutations.applyPastCommitMark ? lastAppended : Math.min(recovered, lastAppended);
        this.reportedCommit = commit;
        this.state = new Follower(this, -1);
        if (quorum.size() == 1 && voter) {
            becomeCandidate(); // a single voter elects itself at start
        }
    }

    // ---------------------------------------------------------------- inputs

    /** A message from peer {@code from}. */
    public void step(int from, ReplicaMessage m) {
        checkInput();
        if (from == id) {
            return; // messages from non-members count: a removed leader leads until its removal commits
        }
        if (m instanceof PreVote pv) {
            onPreVote(from, pv);
            return;
        }
        if (m instanceof Vote v) {
            onVote(from, v);
            return;
        }
        if (m.epoch() < acceptedEpoch) {
            if (ReplicaMessage.fromLeader(m)) {
                send(from, new HeartbeatAck(acceptedEpoch, -1)); // tell a stale leader the newer epoch
            }
            if (!(m instanceof PreVoteAck)) {
                return;
            }
        }
        if (m.epoch() > acceptedEpoch) {
            adoptEpoch(m.epoch());
        }
        state.step(from, m);
    }

    /** Time passes by one tick. */
    public void tick() {
        checkInput();
        state.tick();
    }

    /** Starts an election now (tests, and a leadership hand-over); a leader ignores it. */
    public void campaign() {
        checkInput();
        if (!(state instanceof Leader) && installing == Zxid.NONE && electable()) {
            becomeCandidate();
        }
    }

    /**
     * Leader only: hands leadership to the most up-to-date follower (clean shutdown). The leader stops serving
     * ({@code inService} false), waits until that follower acked everything, then tells it to campaign; if no new
     * leader appears within the election timeout it serves again.
     */
    public void transferLeadership() {
        checkInput();
        if (state instanceof Leader leader) {
            leader.transfer();
        }
    }

    /** Leader in service only: appends and replicates {@code payload} at the next zxid, which it returns. */
    public long propose(byte[] payload) {
        checkInput();
        return leaderInService().propose(payload);
    }

    /** As {@link #propose(byte[])}, asserting the caller's zxid is the next one (contiguity). */
    public long propose(long zxid, byte[] payload) {
        checkInput();
        Leader leader = leaderInService();
        if (zxid != lastAppended + 1 || Zxid.counter(zxid) == 0) {
            throw new IllegalArgumentException("zxid " + Zxid.str(zxid) + " does not follow " + Zxid.str(lastAppended));
        }
        return leader.propose(payload);
    }

    /** The log is durable through {@code zxid} (as it stands after the last executed truncation or install). */
    public void localDurable(long zxid) {
        checkInput();
        if (installing != Zxid.NONE || zxid <= durable) {
            return;
        }
        if (zxid > lastAppended) {
            throw new IllegalArgumentException("durable " + Zxid.str(zxid) + " beyond appended "
                    + Zxid.str(lastAppended));
        }
        durable = zxid;
        state.durabilityAdvanced();
    }

    /** Snapshot {@code zxid} (from a SNAP sync) is installed durably and loaded (P3 a–d done). */
    public void snapshotInstalled(long zxid) {
        checkInput();
        if (installing != zxid) {
            return;
        }
        installing = Zxid.NONE;
        // a snapshot that records no membership is of a log that never held a membership record: the static members
        // (LogView.baseMembership), not this replica's own history up to zxid, which may hold a change the leader's
        // history truncated (an uncommitted record of an older epoch below the sync point)
        Membership atSnapshot = log.baseMembership();
        if (memberships.installed(zxid, atSnapshot != null ? atSnapshot : Membership.ofVoters(config.members()))) {
            applyMembership();
        }
        durable = Math.max(durable, zxid);
        commit = Math.max(commit, zxid);
        state.durabilityAdvanced();
    }

    /**
     * The driver gave up installing snapshot {@code zxid} before it was in place (its sender died or no longer
     * has it: a new leader, or no chunk for two election timeouts). The log stays as the install's first cut left it
     * (after min(durable, zxid - 1), P3 a), so the replica is what it was before the SNAP minus its unsynced tail:
     * it may vote and campaign again, and a follower asks its leader for a new sync. Ignored unless {@code zxid} is being installed.
     */
    public void installAborted(long zxid) {
        checkInput();
        if (installing != zxid || install != Zxid.NONE) {
            return; // not installing it, or the Ready starting the install was not executed yet
        }
        installing = Zxid.NONE;
        lastAppended = log.lastZxid();
        durable = Math.min(durable, lastAppended);
        state.installAborted();
    }

    /** The connection to {@code peer} closed (crash, kill -9): a follower of it campaigns after a small jitter. */
    public void peerDown(int peer) {
        checkInput();
        if (peer != id && downPeers.add(peer)) {
            state.peerDown(peer);
        }
    }

    /** The connection to {@code peer} is back. */
    public void peerUp(int peer) {
        checkInput();
        if (downPeers.remove(peer)) {
            state.peerUp(peer);
        }
    }

    /**
     * Leader in service only: adds server {@code learner} as a learner (it receives the log, counts toward no quorum).
     * Returns the zxid of the membership record; the change is in force at once and final once that zxid commits.
     *
     * @throws IllegalStateException not an in-service leader, or a membership change is not committed yet
     * @throws IllegalArgumentException {@code learner} is already a member
     */
    public long addLearner(int learner) {
        checkInput();
        return leaderForChange().changeMembership(memberships.current().withLearner(learner));
    }

    /**
     * Leader in service only: makes learner {@code learner} a voter, once it holds durably everything committed
     * (a learner that lags would cost the ensemble its write latency, or its quorum: etcd's learner rule).
     *
     * @throws IllegalStateException as {@link #addLearner}, or the learner is not caught up yet (ask again later)
     * @throws IllegalArgumentException {@code learner} is not a learner
     */
    public long promoteLearner(int learner) {
        checkInput();
        Leader leader = leaderForChange();
        Membership next = memberships.current().promoted(learner);
        if (!leader.caughtUp(learner)) {
            throw new IllegalStateException("learner " + learner + " has not caught up with commit "
                    + Zxid.str(commit));
        }
        return leader.changeMembership(next);
    }

    /**
     * Leader in service only: removes member {@code member} (voter or learner; it may be this leader, which then
     * leads until the change commits and steps down).
     *
     * @throws IllegalStateException as {@link #addLearner}
     * @throws IllegalArgumentException {@code member} is not a member, or is the last voter
     */
    public long removeMember(int member) {
        checkInput();
        return leaderForChange().changeMembership(memberships.current().without(member));
    }

    /**
     * Checks that {@code next} is the one membership change this leader may make now, as {@link #addLearner},
     * {@link #promoteLearner} and {@link #removeMember} check theirs, without proposing it: for a driver whose log
     * encodes membership records itself (the server's membership txn), which then {@link #propose}s the record; its
     * append makes the change, as theirs do.
     *
     * @throws IllegalStateException as those methods
     * @throws IllegalArgumentException {@code next} is not one learner added, one learner promoted or one member
     *                                  removed
     */
    public void checkChange(Membership next) {
        checkInput();
        Leader leader = leaderForChange();
        Membership current = memberships.current();
        List<Integer> added = new ArrayList<>(next.members());
        added.removeAll(current.members());
        List<Integer> removed = new ArrayList<>(current.members());
        removed.removeAll(next.members());
        if (added.size() == 1 && removed.isEmpty() && next.equals(current.withLearner(added.get(0)))) {
            return;
        }
        if (removed.size() == 1 && added.isEmpty() && next.equals(current.without(removed.get(0)))) {
            return;
        }
        List<Integer> promoted = new ArrayList<>(next.voters());
        promoted.retainAll(current.learners());
        if (promoted.size() == 1 && next.equals(current.promoted(promoted.get(0)))) {
            if (!leader.caughtUp(promoted.get(0))) {
                throw new IllegalStateException("learner " + promoted.get(0) + " has not caught up with commit "
                        + Zxid.str(commit));
            }
            return;
        }
        throw new IllegalArgumentException("not a single membership change: " + current + " -> " + next);
    }

    /** The membership in force: the last one in the log, committed or not. */
    public Membership membership() {
        return memberships.current();
    }

    /** The membership as of the commit point. */
    public Membership committedMembership() {
        return memberships.at(commit);
    }

    /**
     * The zxid of the membership record in force (the last one in the log, committed or not), or {@link Zxid#NONE}
     * when the membership in force is the log's base (the static members, or a snapshot's).
     */
    public long membershipRecordZxid() {
        return memberships.lastChange();
    }

    /**
     * Linearizable read point for {@code ctx} (ReadIndex, docs/replication.md, Reads and sync): on an in-service
     * leader, the last proposed zxid, answered in {@link Ready#readStates()} once a quorum acked a heartbeat sent after
     * this call; refused otherwise.
     */
    public void readIndex(long ctx) {
        checkInput();
        if (state instanceof Leader leader && leader.inService()) {
            leader.readIndex(ctx);
        } else {
            readStates.add(new ReadState(ctx, Zxid.NONE));
        }
    }

    // ---------------------------------------------------------------- output

    /** Whether {@link #ready()} has anything to do. */
    public boolean hasReady() {
        return metaDirty || truncateAfter != Zxid.NONE || install != Zxid.NONE || !appends.isEmpty()
                || !outbox.isEmpty() || !readStates.isEmpty() || commit != reportedCommit
                || !roleInfo().equals(reportedRole);
    }

    /** The work accumulated since the last {@link #advance()}. */
    public Ready ready() {
        if (outstanding == null) {
            outstanding = new Ready(metaDirty ? meta() : null, truncateAfter, install, List.copyOf(appends),
                    List.copyOf(outbox), commit, roleInfo(), List.copyOf(readStates));
        }
        return outstanding;
    }

    /** The driver executed the last {@link #ready()}. */
    public void advance() {
        if (outstanding == null) {
            throw new IllegalStateException("advance() without ready()");
        }
        metaDirty = false;
        truncateAfter = Zxid.NONE;
        install = Zxid.NONE;
        appends.clear();
        outbox.clear();
        readStates.clear();
        reportedCommit = outstanding.commit();
        reportedRole = outstanding.role();
        outstanding = null;
    }

    /**
     * On a leader, each follower's highest acked zxid (id order); empty on a follower or candidate. For metrics
     * (follower lag): a copy, read in the replica's own thread.
     */
    public java.util.Map<Integer, Long> followerMatches() {
        return state instanceof Leader l ? l.matches() : java.util.Map.of();
    }

    public RoleInfo roleInfo() {
        return new RoleInfo(state.role(), state.leaderId(), acceptedEpoch, state.inService());
    }

    public Meta meta() {
        return new Meta(acceptedEpoch, votedFor);
    }

    public int id() {
        return id;
    }

    public long commitZxid() {
        return commit;
    }

    public long durableZxid() {
        return durable;
    }

    public long lastAppendedZxid() {
        return lastAppended;
    }

    // ---------------------------------------------------------------- voting (any role)

    private void onPreVote(int from, PreVote pv) {
        boolean better = ranksAbove(from, pv.lastZxid());
        boolean grant = pv.epoch() > acceptedEpoch && !hasLiveLeader() && better;
        send(from, new PreVoteAck(acceptedEpoch, pv.epoch(), grant));
        if (electable() && !grant && !better && pv.epoch() > acceptedEpoch && !hasLiveLeader() && state instanceof Follower
                && installing == Zxid.NONE) {
            becomeCandidate(); // a better voter campaigns at once (what FLE does by re-broadcasting its vote)
        }
    }

    private void onVote(int from, Vote v) {
        if (v.epoch() <= acceptedEpoch) {
            send(from, new VoteAck(acceptedEpoch, v.epoch() == acceptedEpoch && votedFor == from));
            return;
        }
        if (hasLiveLeader() && !v.transfer()) {
            return; // a live leader's followers ignore disruptive candidates (pre-vote normally stops them first)
        }
        boolean grant = v.transfer() ? v.lastZxid() >= rankZxid() : ranksAbove(from, v.lastZxid());
        if (grant) {
            acceptedEpoch = v.epoch();
            votedFor = from;
            metaDirty = true;
            becomeFollower(-1);
            send(from, new VoteAck(acceptedEpoch, true));
        } else if (v.transfer()) {
            send(from, new VoteAck(acceptedEpoch, false)); // a hand-over to a replica behind this one: refused
        } else if (installing == Zxid.NONE && electable()) {
            send(from, new VoteAck(v.epoch(), false));
            campaignFor(v.epoch(), false); // better than the candidate: campaign for the same epoch at once
        } else {
            adoptEpoch(v.epoch());
            send(from, new VoteAck(acceptedEpoch, false));
        }
    }

    /** The zxid this replica campaigns and ranks with: its last durable one (never an unsynced tail). */
    long rankZxid() {
        if (mutations.epochAheadOfHistory && acceptedEpoch > Zxid.epoch(durable)) {
            return Zxid.of(acceptedEpoch, 0);
        }
        return durable;
    }

    /** Whether candidate {@code cand} with {@code candZxid} ranks strictly above this replica: (zxid, id). */
    boolean ranksAbove(int cand, long candZxid) {
        long mine = rankZxid();
        return candZxid > mine || candZxid == mine && cand > id;
    }

    /**
     * Whether this replica may campaign: a voter of its current membership, or of its committed one. A learner or a
     * member whose removal committed never campaigns; one whose removal is still pending may have to lead to commit
     * it (its log is the longest), counting the votes of the new voters only. Any replica grants votes (Raft's rule;
     * ids are never reused, so a vote always comes from a disk that kept its promises).
     */
    boolean electable() {
        return voter || memberships.at(commit).isVoter(id);
    }

    /**
     * Whether this replica follows a leader it heard from within an election timeout (and whose link is up), or
     * leads. A non-voter never campaigns, so this is how it sees that its leader went quiet.
     */
    public boolean hasLiveLeader() {
        return state.hasLiveLeader();
    }

    // ---------------------------------------------------------------- transitions and effects for roles

    void adoptEpoch(long epoch) {
        acceptedEpoch = epoch;
        votedFor = -1;
        metaDirty = true;
        becomeFollower(-1);
    }

    void persistVote(long epoch, int candidate) {
        acceptedEpoch = epoch;
        votedFor = candidate;
        metaDirty = true;
    }

    void becomeFollower(int leaderId) {
        state.leave();
        state = new Follower(this, leaderId);
    }

    void becomeCandidate() {
        state.leave();
        Candidate c = new Candidate(this);
        state = c;
        c.startPreVote();
    }

    /** Becomes a candidate voting for itself in {@code epoch} at once (no pre-vote). */
    void campaignFor(long epoch, boolean transfer) {
        state.leave();
        Candidate c = new Candidate(this);
        state = c;
        c.startVote(epoch, transfer);
    }

    void becomeLeader() {
        state.leave();
        Leader l = new Leader(this);
        state = l;
        l.start();
    }

    /** The membership history's current membership changed (a record appended, truncated or installed). */
    private void applyMembership() {
        Membership m = memberships.current();
        quorum = new Quorum(m.voters());
        voter = m.isVoter(id);
        peers = m.members().stream().mapToInt(Integer::intValue).filter(p -> p != id).toArray();
        voterPeers = m.voters().stream().mapToInt(Integer::intValue).filter(p -> p != id).toArray();
        if (state != null) {
            state.membershipChanged();
        }
    }

    private Leader leaderForChange() {
        if (!(state instanceof Leader leader)) {
            throw new IllegalStateException("not the leader: " + roleInfo());
        }
        if (!leader.inService() && !mutations.reconfigBeforeEpochCommit) {
            // a new leader changes the membership only after a record of its own epoch (its EPOCH record) committed:
            // the fix of the single-server-change bug in Raft's original proposal (docs/membership.md)
            throw new IllegalStateException("not in service yet: " + roleInfo());
        }
        if (memberships.lastChange() > commit) {
            throw new IllegalStateException("the membership change at " + Zxid.str(memberships.lastChange())
                    + " is not committed yet (one change at a time)");
        }
        return leader;
    }

    void send(int to, ReplicaMessage m) {
        outbox.add(new Envelope(to, m));
    }

    /** To every other voter (elections). */
    void broadcast(ReplicaMessage m) {
        for (int p : voterPeers) {
            send(p, m);
        }
    }

    void refuseRead(long ctx) {
        readStates.add(new ReadState(ctx, Zxid.NONE));
    }

    void answerRead(long ctx, long readZxid) {
        readStates.add(new ReadState(ctx, readZxid));
    }

    void append(Entry e) {
        if (e.zxid() <= lastAppended) {
            throw new IllegalStateException("append " + e + " after " + Zxid.str(lastAppended));
        }
        appends.add(e);
        lastAppended = e.zxid();
        Membership m = codec.decode(e.payload());
        if (m != null) {
            memberships.appended(e.zxid(), m);
            applyMembership();
        }
    }

    /** Drops every record after {@code zxid} (durably, before anything else is appended: P2). */
    void truncate(long zxid) {
        if (zxid < commit) {
            throw new ConsensusViolation("truncate after " + Zxid.str(zxid) + " below commit " + Zxid.str(commit));
        }
        appends.removeIf(e -> e.zxid() > zxid);
        if (install == Zxid.NONE && log.lastZxid() > zxid) {
            truncateAfter = truncateAfter == Zxid.NONE ? zxid : Math.min(truncateAfter, zxid);
        }
        lastAppended = Math.min(lastAppended, zxid);
        durable = Math.min(durable, zxid);
        if (memberships.truncatedAfter(zxid)) {
            applyMembership(); // truncation undoes an uncommitted change
        }
    }

    /**
     * SNAP: install {@code zxid}; the log continues after it. First the log is cut after min(durable, zxid - 1)
     * (P3 a, as zkr refines it): the unsynced tail and anything at or beyond the snapshot go, but durable records
     * stay until the snapshot that covers them is in place — this follower may have acked them, so a commit may
     * count on them (cutting after the commit point, as P3 first said, left such records on the leader alone
     * during the install: server simulator seed 1102). The install then replaces everything up to {@code zxid}.
     */
    void installSnapshot(long zxid) {
        if (!mutations.snapWithoutTruncation) {
            truncate(Math.min(durable, zxid - 1));
        }
        appends.clear();
        install = zxid;
        installing = zxid;
        lastAppended = zxid;
        if (mutations.snapAckedFromMemory) {
            durable = zxid;
        }
    }

    /** The epoch table of the log as appended (pending truncation and appends included). */
    EpochTable epochTable() {
        EpochTable table = install != Zxid.NONE ? EpochTable.EMPTY : log.epochTable();
        if (truncateAfter != Zxid.NONE) {
            table = table.clippedTo(truncateAfter);
        }
        if (appends.isEmpty()) {
            return table;
        }
        EpochTable.Builder b = new EpochTable.Builder();
        for (int i = 0; i < table.size(); i++) {
            b.add(table.lastAt(i));
        }
        for (Entry e : appends) {
            b.add(e.zxid());
        }
        return b.build();
    }

    /** The records after {@code zxid} as appended (leader only: it never truncates or installs). */
    List<Entry> entriesAfter(long zxid) {
        List<Entry> out = new ArrayList<>();
        long upTo = truncateAfter == Zxid.NONE ? Long.MAX_VALUE : truncateAfter;
        for (Entry e : log.entriesAfter(zxid)) {
            if (e.zxid() <= upTo) {
                out.add(e);
            }
        }
        for (Entry e : appends) {
            if (e.zxid() > zxid) {
                out.add(e);
            }
        }
        return out;
    }

    int randomElectionTimeout() {
        return config.electionTicks() + random.nextInt(config.electionTicks());
    }

    int randomJitter() {
        return 1 + random.nextInt(config.campaignJitterTicks() + 1);
    }

    /** True if this replica leads in service right now: {@link #propose} would take a record. */
    public boolean isLeaderInService() {
        return state instanceof Leader leader && leader.inService();
    }

    private Leader leaderInService() {
        if (state instanceof Leader leader && leader.inService()) {
            return leader;
        }
        throw new IllegalStateException("not an in-service leader: " + roleInfo());
    }

    private void checkInput() {
        if (outstanding != null) {
            throw new IllegalStateException("input between ready() and advance()");
        }
    }

    @Override
    public String toString() {
        return "Replica" + id + "[" + roleInfo() + " appended=" + Zxid.str(lastAppended) + " durable="
                + Zxid.str(durable) + " commit=" + Zxid.str(commit) + "]";
    }
}
