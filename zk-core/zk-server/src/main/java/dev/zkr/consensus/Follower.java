package dev.zkr.consensus;

import dev.zkr.consensus.ReplicaMessage.Ack;
import dev.zkr.consensus.ReplicaMessage.Commit;
import dev.zkr.consensus.ReplicaMessage.FollowerInfo;
import dev.zkr.consensus.ReplicaMessage.Heartbeat;
import dev.zkr.consensus.ReplicaMessage.HeartbeatAck;
import dev.zkr.consensus.ReplicaMessage.LeaderDurable;
import dev.zkr.consensus.ReplicaMessage.Propose;
import dev.zkr.consensus.ReplicaMessage.SyncStart;

/**
 * Follower of the accepted epoch's leader (or waiting to learn it). It syncs with the leader (FollowerInfo →
 * SyncStart → Proposes), appends only contiguously, acks only what the disk reported durable (P4), and commits up to
 * min(leader's commit, its own durable point).
 */
final class Follower extends RoleState {
    private int leaderId;
    /** In sync with the leader: the log up to lastAppended is a prefix of the leader's. */
    private boolean synced;
    /** A FollowerInfo was sent; only the SyncStart answering {@link #syncId} counts. */
    private boolean awaitingSync;
    private long syncId = -1;
    private int syncCooldown;
    /** Requests sent again while one was unanswered, since the last answered one (the cooldown doubles with it). */
    private int unanswered;
    private long leaderCommit;
    /** The leader's durable point as it last told ({@link LeaderDurable}). */
    private long leaderDurable = Zxid.NONE;
    private long lastAck = Zxid.NONE;
    private int electionElapsed;
    private final int electionTimeout;
    /** Ticks until a campaign after the leader's connection closed; 0 = none scheduled. */
    private int campaignIn;

    Follower(Replica r, int leaderId) {
        super(r);
        this.leaderId = leaderId;
        this.electionTimeout = r.randomElectionTimeout();
    }

    @Override
    Role role() {
        return Role.FOLLOWER;
    }

    @Override
    int leaderId() {
        return leaderId;
    }

    @Override
    boolean hasLiveLeader() {
        return leaderId >= 0 && electionElapsed < r.config.electionTicks() && !r.downPeers.contains(leaderId);
    }

    @Override
    void step(int from, ReplicaMessage m) {
        if (ReplicaMessage.fromLeader(m)) {
            if (leaderId < 0) {
                leaderId = from;
                synced = false;
                awaitingSync = false;
            } else if (leaderId != from) {
                throw new ConsensusViolation("two leaders in epoch " + r.acceptedEpoch + ": " + leaderId + ", " + from);
            }
            electionElapsed = 0;
            campaignIn = 0;
        }
        if (m instanceof Heartbeat h) {
            onHeartbeat(h);
        } else if (m instanceof Propose p) {
            onPropose(p);
        } else if (m instanceof Commit c) {
            leaderCommit = Math.max(leaderCommit, c.zxid());
            advanceCommit();
        } else if (m instanceof LeaderDurable d) {
            leaderDurable = Math.max(leaderDurable, d.zxid());
            advanceCommit();
        } else if (m instanceof SyncStart s) {
            onSyncStart(s);
        } else if (m instanceof ReplicaMessage.TimeoutNow && from == leaderId && synced && r.installing == Zxid.NONE
                && r.electable()) {
            r.campaignFor(r.acceptedEpoch + 1, true); // the leader hands over: no pre-vote
        }
    }

    private void onHeartbeat(Heartbeat h) {
        if (!synced) {
            r.send(leaderId, new HeartbeatAck(r.acceptedEpoch, h.round()));
            requestSync(false);
            return;
        }
        if (h.syncId() != syncId || h.lastSent() > r.lastAppended) {
            // the leader sent more than arrived (a lost proposal), or it no longer streams this sync to us (it saw
            // the connection reset; heartbeats after our SyncStart carry its id until then)
            r.send(leaderId, new HeartbeatAck(r.acceptedEpoch, h.round()));
            requestSync(true);
            return;
        }
        boolean installed = r.installing == Zxid.NONE;
        r.send(leaderId, new HeartbeatAck(r.acceptedEpoch, h.round(), installed ? r.durable : Zxid.NONE));
        leaderCommit = Math.max(leaderCommit, h.commitZxid());
        advanceCommit();
    }

    private void onPropose(Propose p) {
        if (!synced) {
            if (!awaitingSync) {
                requestSync(false);
            }
            // else: proposals of an older stream, or sent before the leader saw our request; its answer follows
            // them on the link, and a lost request is asked again on a heartbeat after the cooldown. Asking again
            // here cancelled an answer in flight each time: a learner catching up with a long log never synced
            // (membership simulator seed 2780)
            return;
        }
        if (p.zxid() <= r.lastAppended) {
            return; // duplicate
        }
        if (p.prevZxid() != r.lastAppended && !r.mutations.diffWithoutContiguity) {
            requestSync(true); // gap: never append discontiguously (ZOOKEEPER-4925)
            return;
        }
        r.append(p.entry());
        if (r.mutations.ackBeforeFsync) {
            sendAck(r.lastAppended);
        }
    }

    private void onSyncStart(SyncStart s) {
        if (!awaitingSync || s.syncId() != syncId) {
            return; // answers an older FollowerInfo
        }
        awaitingSync = false;
        synced = true;
        unanswered = 0;
        if (s.mode() == SyncMode.SNAP) {
            if (s.zxid() <= r.commit) {
                throw new ConsensusViolation("SNAP " + Zxid.str(s.zxid()) + " at or below commit "
                        + Zxid.str(r.commit));
            }
            r.installSnapshot(s.zxid());
            if (r.mutations.snapAckedFromMemory) {
                sendAck(s.zxid());
            }
            return;
        }
        if (s.zxid() > r.lastAppended) {
            throw new ConsensusViolation(s + " beyond appended " + Zxid.str(r.lastAppended));
        }
        if (r.lastAppended > s.zxid()) {
            r.truncate(s.zxid());
        }
        sendAck(r.durable);
    }

    /**
     * Asks the leader for a sync; {@code force} skips the cooldown (after a gap or a reconnect). Asked even while the
     * driver reports the link to the leader down: hearing the leader shows the notice is stale or about to be
     * followed by {@code peerUp} (which asks again), and a follower that waited for it would ack the leader's
     * heartbeats unsynced for good (whole-server simulator seed 441).
     */
    private void requestSync(boolean force) {
        if (leaderId < 0 || r.installing != Zxid.NONE) {
            return;
        }
        if (awaitingSync && !force && syncCooldown > 0) {
            return;
        }
        synced = false;
        if (r.commit > r.durable && !r.mutations.syncAheadOfDisk) {
            // a former leader that committed on its followers' disks ahead of its own: its FollowerInfo waits for
            // its disk to reach the commit point (durabilityAdvanced asks again), so no sync can cut a committed
            // record it applied
            awaitingSync = false;
            return;
        }
        // asked again while the last request is unanswered: wait twice as long each time (up to 2T), so an answer
        // that takes longer than the cooldown to arrive (behind a long stream on the link) is not cancelled forever
        unanswered = awaitingSync ? Math.min(unanswered + 1, 3) : 0;
        awaitingSync = true;
        syncId = ++r.nextSyncId;
        syncCooldown = Math.min(2 * r.config.electionTicks(), Math.max(1, r.config.electionTicks() / 4) << unanswered);
        EpochTable table = r.epochTable().clippedTo(r.durable).above(r.commit);
        r.send(leaderId, new FollowerInfo(r.acceptedEpoch, syncId, r.durable, r.commit, table));
    }

    private void sendAck(long zxid) {
        lastAck = zxid;
        r.send(leaderId, new Ack(r.acceptedEpoch, zxid));
    }

    private void advanceCommit() {
        if (!synced || r.installing != Zxid.NONE) {
            return;
        }
        long c = r.mutations.commitWithoutLeaderCommit ? r.durable : Math.min(leaderCommit, r.durable);
        c = Math.max(c, countedCommit());
        if (c > r.commit) {
            r.commit = c;
        }
    }

    /**
     * What this follower can count as committed itself: the highest zxid of this epoch that its own disk and the
     * leader's ({@link LeaderDurable}) both hold, when those two make a quorum (2 or 3 voters) — Raft's rule, an
     * entry of the leader's term stored on a majority is committed; after the sync this log is a prefix of the
     * leader's, so the same zxid is the same entry. Not while a membership change is pending (its quorum is the
     * leader's to count).
     */
    private long countedCommit() {
        if (leaderId < 0 || Zxid.epoch(leaderDurable) != r.acceptedEpoch || r.memberships.lastChange() > r.commit) {
            return Zxid.NONE;
        }
        boolean alone = r.mutations.commitOnLeaderDurableAlone;
        long mine = alone ? leaderDurable : r.durable;
        long q = r.quorum.committed(java.util.Map.of(r.id, mine, leaderId, leaderDurable));
        if (!alone) {
            // capped by its own disk: a learner (not in the quorum) of a single voter would count the leader alone
            q = Math.min(q, r.durable);
        }
        return Zxid.epoch(q) == r.acceptedEpoch ? q : Zxid.NONE;
    }

    @Override
    void durabilityAdvanced() {
        if (synced && leaderId >= 0 && r.durable > lastAck) {
            sendAck(r.durable);
        }
        advanceCommit();
        if (leaderId >= 0 && !synced && !awaitingSync) {
            requestSync(true); // e.g. a snapshot install finished while the leader was away
        }
    }

    @Override
    void installAborted() {
        synced = false;
        awaitingSync = false;
        requestSync(true);
    }

    @Override
    void tick() {
        electionElapsed++;
        if (syncCooldown > 0) {
            syncCooldown--;
        }
        if (campaignIn > 0 && --campaignIn == 0 || electionElapsed >= electionTimeout) {
            if (!r.electable()) {
                campaignIn = 0; // a learner or removed member never campaigns: it waits for a leader to reach it
            } else if (r.installing == Zxid.NONE) {
                r.becomeCandidate();
            } else {
                electionElapsed = 0;
            }
        }
    }

    @Override
    void peerDown(int peer) {
        if (peer == leaderId) {
            synced = false;
            awaitingSync = false;
            campaignIn = r.randomJitter();
        }
    }

    @Override
    void peerUp(int peer) {
        if (peer == leaderId) {
            campaignIn = 0;
            requestSync(true);
        }
    }
}
