package dev.zkr.consensus;

import dev.zkr.consensus.ReplicaMessage.Ack;
import dev.zkr.consensus.ReplicaMessage.Commit;
import dev.zkr.consensus.ReplicaMessage.FollowerInfo;
import dev.zkr.consensus.ReplicaMessage.Heartbeat;
import dev.zkr.consensus.ReplicaMessage.HeartbeatAck;
import dev.zkr.consensus.ReplicaMessage.LeaderDurable;
import dev.zkr.consensus.ReplicaMessage.Propose;
import dev.zkr.consensus.ReplicaMessage.SyncStart;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Leader of its accepted epoch e. It appends {@code EPOCH(e,0)} at once, syncs each follower from the exact common
 * prefix (docs/replication.md, Common prefix), and commits a zxid of its own epoch once a quorum has it durable (its
 * own copy counts after its own fsync, but followers alone can make the quorum: the commit point may run ahead of the
 * leader's durable point); committing (e,0) commits everything before it and puts the leader in service (UPTODATE). It
 * steps down when it has not heard from a quorum within the election timeout (check-quorum), and once its own removal
 * from the voters committed (docs/membership.md). It replicates to voters and learners; only voters count.
 */
final class Leader extends RoleState {
    private final long epoch;
    private final Map<Integer, Progress> progress = new HashMap<>();
    private final Set<Integer> active = new HashSet<>();
    private boolean inService;
    /** Follower leadership is being handed to, -1 if none; TimeoutNow sent once it acked everything. */
    private int transferTo = -1;
    private boolean timeoutNowSent;
    private int transferElapsed;
    private int heartbeatElapsed;
    private int quorumElapsed;
    /** The durable point last sent as {@link LeaderDurable}. */
    private long toldDurable = Zxid.NONE;
    private long readRound;
    private final ArrayDeque<PendingRead> reads = new ArrayDeque<>();

    private static final class PendingRead {
        final long ctx;
        final long readZxid;
        final long round;
        final Set<Integer> acks = new HashSet<>();

        PendingRead(long ctx, long readZxid, long round) {
            this.ctx = ctx;
            this.readZxid = readZxid;
            this.round = round;
        }
    }

    Leader(Replica r) {
        super(r);
        this.epoch = r.acceptedEpoch;
        for (int p : replicatedTo()) {
            progress.put(p, new Progress());
        }
    }

    void start() {
        r.append(Entry.epochRecord(epoch));
        broadcastHeartbeat();
        maybeCommit();
    }

    @Override
    Role role() {
        return Role.LEADER;
    }

    @Override
    int leaderId() {
        return r.id;
    }

    @Override
    boolean inService() {
        return inService && transferTo < 0;
    }

    /** Each follower's highest acked zxid (for metrics: follower lag). */
    Map<Integer, Long> matches() {
        Map<Integer, Long> m = new java.util.TreeMap<>();
        progress.forEach((id, p) -> m.put(id, p.match));
        return m;
    }

    void transfer() {
        int best = -1;
        for (Map.Entry<Integer, Progress> e : progress.entrySet()) {
            Progress p = e.getValue();
            if (p.mode == Progress.Mode.REPLICATE && !r.downPeers.contains(e.getKey()) && r.quorum.isMember(e.getKey())
                    && (best < 0 || p.match > progress.get(best).match
                    || p.match == progress.get(best).match && e.getKey() > best)) {
                best = e.getKey();
            }
        }
        if (best < 0) {
            return;
        }
        transferTo = best;
        timeoutNowSent = false;
        transferElapsed = 0;
        maybeSendTimeoutNow();
    }

    private void maybeSendTimeoutNow() {
        if (transferTo >= 0 && !timeoutNowSent && progress.get(transferTo).match >= r.lastAppended) {
            timeoutNowSent = true;
            r.send(transferTo, new ReplicaMessage.TimeoutNow(epoch));
        }
    }

    @Override
    boolean hasLiveLeader() {
        return true;
    }

    long propose(byte[] payload) {
        if (Zxid.counter(r.lastAppended) == 0xffff_ffffL) {
            throw new IllegalStateException("epoch " + epoch + " exhausted its counter");
        }
        long prev = r.lastAppended;
        long zxid = prev + 1;
        r.append(new Entry(zxid, payload));
        for (Map.Entry<Integer, Progress> e : progress.entrySet()) {
            Progress p = e.getValue();
            if (p.mode == Progress.Mode.REPLICATE) {
                r.send(e.getKey(), new Propose(epoch, prev, zxid, payload));
                p.lastSent = zxid;
            }
        }
        maybeCommit();
        return zxid;
    }

    /** Appends a membership record for {@code next} (the caller checked it is the one change allowed now). */
    long changeMembership(Membership next) {
        return propose(r.codec.encode(next));
    }

    /** Whether learner {@code id} holds durably everything committed (it may be promoted). */
    boolean caughtUp(int id) {
        Progress p = progress.get(id);
        return p != null && p.mode == Progress.Mode.REPLICATE && p.match >= r.commit;
    }

    /**
     * Follows the membership: a new member gets a progress entry and a heartbeat (it then asks for a sync); a removed
     * one is replicated to until its removal commits, so it learns of it and stays quiet (it counts toward nothing).
     */
    @Override
    void membershipChanged() {
        membershipFollowed();
    }

    /** The other members of the current membership and of the committed one (a removal not yet committed). */
    private Set<Integer> replicatedTo() {
        Set<Integer> to = new java.util.TreeSet<>(r.memberships.current().members());
        to.addAll(r.memberships.at(r.commit).members());
        to.remove(r.id);
        return to;
    }

    private void membershipFollowed() {
        Set<Integer> keep = replicatedTo();
        for (int p : keep) {
            if (!progress.containsKey(p)) {
                progress.put(p, new Progress()); // a new member: it asks for a sync on this heartbeat
                r.send(p, new Heartbeat(epoch, r.commit, readRound, -1, Zxid.NONE));
            }
        }
        progress.keySet().retainAll(keep);
        active.retainAll(keep);
        if (transferTo >= 0 && !r.quorum.isMember(transferTo)) {
            transferTo = -1;
        }
    }

    void readIndex(long ctx) {
        if (transferTo >= 0) {
            r.refuseRead(ctx);
            return;
        }
        if (r.quorum.size() == 1 && r.voter || r.mutations.syncWithoutQuorum) {
            r.answerRead(ctx, r.lastAppended);
            return;
        }
        PendingRead read = new PendingRead(ctx, r.lastAppended, ++readRound);
        read.acks.add(r.id);
        reads.add(read);
        broadcastHeartbeat();
    }

    @Override
    void step(int from, ReplicaMessage m) {
        if (!progress.containsKey(from) && (m instanceof FollowerInfo || m instanceof Ack
                || m instanceof HeartbeatAck)) {
            return; // not a member (any more): a removed server that missed its removal
        }
        if (m instanceof FollowerInfo fi) {
            active.add(from);
            sync(from, fi);
        } else if (m instanceof Ack a) {
            active.add(from);
            onAck(from, a);
        } else if (m instanceof HeartbeatAck h) {
            active.add(from);
            if (h.ackZxid() != Zxid.NONE && h.ackZxid() > progress.get(from).match) {
                onAck(from, new Ack(h.epoch(), h.ackZxid()));
            }
            if (h.round() > 0 && r.state == this) {
                ackReads(from, h.round());
            }
        } else if (ReplicaMessage.fromLeader(m)) {
            throw new ConsensusViolation("two leaders in epoch " + epoch + ": " + r.id + ", " + from);
        }
    }

    /** Brings a follower to this log from the exact common prefix (docs/replication.md, Common prefix). */
    private void sync(int from, FollowerInfo fi) {
        EpochTable mine = r.epochTable();
        long base = r.log.baseZxid();
        long fc = fi.commitZxid();
        if (fc > r.lastAppended || fc > base && mine.lastOf(Zxid.epoch(fc)) < fc) {
            throw new ConsensusViolation("leader " + r.id + " lacks follower " + from + "'s committed "
                    + Zxid.str(fc) + " (log " + mine + " base " + Zxid.str(base) + ")");
        }
        long common = mine.commonPrefix(fi.table(), fc);
        long theirsAtBase = fi.table().lastOf(Zxid.epoch(base));
        if (common < base && theirsAtBase != Zxid.NONE && theirsAtBase >= base) {
            // the follower holds the record at the base (its epoch reaches it; no gap inside an epoch), and one
            // zxid is one record everywhere, with the same history before it: DIFF from the base, not SNAP — the
            // table of the log after the base could not show it when nothing of that epoch follows the base
            common = base;
        }
        SyncMode mode;
        long at;
        if (common < base) {
            mode = SyncMode.SNAP;
            at = r.log.snapshotZxid();
        } else {
            mode = common < fi.lastZxid() ? SyncMode.TRUNC : SyncMode.DIFF;
            at = common;
        }
        r.send(from, new SyncStart(epoch, fi.syncId(), mode, at));
        List<Entry> entries = r.entriesAfter(at);
        long prev = at;
        for (Entry e : entries) {
            r.send(from, new Propose(epoch, prev, e.zxid(), e.payload()));
            prev = e.zxid();
        }
        Progress p = progress.get(from);
        p.mode = Progress.Mode.REPLICATE;
        p.syncId = fi.syncId();
        p.lastSent = prev;
        p.syncPoint = prev;
        p.syncPointAcked = false;
        if (r.commit > at) {
            r.send(from, new Commit(epoch, r.commit));
        }
    }

    private void onAck(int from, Ack a) {
        if (a.zxid() > r.lastAppended) {
            throw new ConsensusViolation("follower " + from + " acked " + Zxid.str(a.zxid()) + " beyond the leader's "
                    + Zxid.str(r.lastAppended));
        }
        Progress p = progress.get(from);
        if (r.mutations.nonCumulativeAcks && p.mode == Progress.Mode.REPLICATE) {
            if (!p.syncPointAcked && a.zxid() > p.syncPoint) {
                r.becomeFollower(-1); // ZooKeeper 3.9's "ack of a proposal before the ack of NEWLEADER" shutdown
                return;
            }
            p.syncPointAcked |= a.zxid() >= p.syncPoint;
        }
        p.match = Math.max(p.match, a.zxid());
        maybeCommit();
        maybeSendTimeoutNow();
    }

    private void maybeCommit() {
        Map<Integer, Long> matched = new HashMap<>();
        matched.put(r.id, r.durable);
        progress.forEach((id, p) -> matched.put(id, p.match));
        // the leader's own copy counts only once durable (P6), but a quorum of followers' disks commits without it:
        // a slow leader disk must not stall every write (ZooKeeper commits the same way); the leader then applies
        // ahead of its own log, which recovery (P7) and a step-down (Follower.requestSync) allow for
        // a pending membership change is in force already: it and what follows commit on its quorum, never on the
        // previous membership's alone (docs/membership.md)
        Quorum q = r.mutations.commitOnOldQuorum && r.memberships.lastChange() > r.commit
                ? new Quorum(r.memberships.previous().voters()) : r.quorum;
        long c = q.committed(matched);
        if (c <= r.commit || Zxid.epoch(c) != epoch) {
            return; // only zxids of its own epoch are committed by counting (Raft's Figure 8 rule)
        }
        long previous = r.commit;
        r.commit = c;
        inService = true;
        boolean changeCommitted = r.memberships.lastChange() != Zxid.NONE && r.memberships.lastChange() <= c
                && r.memberships.lastChange() > previous;
        progress.forEach((id, p) -> {
            if (p.mode == Progress.Mode.REPLICATE) {
                r.send(id, new Commit(epoch, c));
            }
        });
        if (changeCommitted) {
            membershipFollowed(); // a removed member has heard of its removal's commit: stop replicating to it
        }
        if (!r.voter && !r.memberships.at(c).isVoter(r.id) && !r.mutations.removedLeaderKeepsLeading) {
            stepDownRemoved();
        }
    }

    /**
     * Its removal committed: it hands over to its most up-to-date voter if one holds everything (no wait for an
     * election timeout), and steps down. A non-voter never campaigns again.
     */
    private void stepDownRemoved() {
        int best = -1;
        for (Map.Entry<Integer, Progress> e : progress.entrySet()) {
            Progress p = e.getValue();
            if (p.mode == Progress.Mode.REPLICATE && r.quorum.isMember(e.getKey()) && p.match >= r.lastAppended
                    && !r.downPeers.contains(e.getKey()) && (best < 0 || e.getKey() > best)) {
                best = e.getKey();
            }
        }
        if (best >= 0) {
            r.send(best, new ReplicaMessage.TimeoutNow(epoch));
        }
        r.becomeFollower(-1);
    }

    private void ackReads(int from, long round) {
        for (PendingRead read : reads) {
            if (read.round <= round) {
                read.acks.add(from);
            }
        }
        while (!reads.isEmpty() && r.quorum.reached(reads.peek().acks)) {
            PendingRead read = reads.poll();
            r.answerRead(read.ctx, read.readZxid);
        }
    }

    private void broadcastHeartbeat() {
        heartbeatElapsed = 0;
        progress.forEach((id, p) -> {
            boolean replicating = p.mode == Progress.Mode.REPLICATE;
            r.send(id, new Heartbeat(epoch, r.commit, readRound, replicating ? p.syncId : -1,
                    replicating ? p.lastSent : Zxid.NONE));
        });
    }

    @Override
    void durabilityAdvanced() {
        maybeCommit();
        tellDurable();
    }

    /**
     * Where a quorum is two members, tells the followers it replicates to how far its own log is durable: a follower
     * holding a zxid of this epoch durably knows then that two members have it, and commits without waiting for the
     * leader to count its ack and send {@link Commit} (two hops and a round less for every write through a
     * follower). With more voters a follower cannot count a quorum this way, and nothing is sent.
     */
    private void tellDurable() {
        if (r.quorum.majority() != 2 || Zxid.epoch(r.durable) != epoch || r.durable <= toldDurable) {
            return;
        }
        toldDurable = r.durable;
        LeaderDurable d = new LeaderDurable(epoch, r.durable);
        progress.forEach((id, p) -> {
            if (p.mode == Progress.Mode.REPLICATE) {
                r.send(id, d);
            }
        });
    }

    @Override
    void tick() {
        if (transferTo >= 0 && ++transferElapsed >= r.config.electionTicks()) {
            transferTo = -1; // the hand-over did not happen: serve again
        }
        if (++heartbeatElapsed >= r.config.heartbeatTicks()) {
            broadcastHeartbeat();
        }
        if (++quorumElapsed >= r.config.electionTicks()) {
            quorumElapsed = 0;
            active.add(r.id);
            boolean heard = r.quorum.reached(active);
            active.clear();
            if (!heard) {
                r.becomeFollower(-1); // check-quorum: an isolated leader steps down within T
            }
        }
    }

    @Override
    void peerDown(int peer) {
        Progress p = progress.get(peer);
        if (p == null) {
            return;
        }
        p.mode = Progress.Mode.PROBE;
        p.syncId = -1;
    }

    @Override
    void peerUp(int peer) {
        Progress p = progress.get(peer);
        if (p == null) {
            return;
        }
        p.mode = Progress.Mode.PROBE;
        p.syncId = -1;
        r.send(peer, new Heartbeat(epoch, r.commit, readRound, -1, Zxid.NONE));
    }

    @Override
    void leave() {
        for (PendingRead read : reads) {
            r.refuseRead(read.ctx);
        }
        reads.clear();
    }
}
