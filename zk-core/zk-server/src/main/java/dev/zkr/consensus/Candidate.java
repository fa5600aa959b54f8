package dev.zkr.consensus;

import dev.zkr.consensus.ReplicaMessage.Commit;
import dev.zkr.consensus.ReplicaMessage.Heartbeat;
import dev.zkr.consensus.ReplicaMessage.PreVote;
import dev.zkr.consensus.ReplicaMessage.PreVoteAck;
import dev.zkr.consensus.ReplicaMessage.Propose;
import dev.zkr.consensus.ReplicaMessage.SyncStart;
import dev.zkr.consensus.ReplicaMessage.Vote;
import dev.zkr.consensus.ReplicaMessage.VoteAck;
import java.util.HashSet;
import java.util.Set;

/**
 * Campaigns for epoch acceptedEpoch + 1: first a pre-vote (nothing persisted), then the vote itself — it persists
 * {@code acceptedEpoch = e, votedFor = self} before its {@code Vote}s are sent (P1). A quorum of grants makes it
 * leader of e; a quorum of voters has then promised to ignore older epochs (Zab's ACKEPOCH).
 */
final class Candidate extends RoleState {
    private boolean preVote;
    private long epoch;
    private final Set<Integer> grants = new HashSet<>();
    private final Set<Integer> refusals = new HashSet<>();
    private int elapsed;
    private int timeout;

    Candidate(Replica r) {
        super(r);
    }

    @Override
    Role role() {
        return Role.CANDIDATE;
    }

    @Override
    int leaderId() {
        return -1;
    }

    @Override
    boolean hasLiveLeader() {
        return false;
    }

    /** Starts with a pre-vote for acceptedEpoch + 1. */
    void startPreVote() {
        preVote = true;
        epoch = r.acceptedEpoch + 1;
        restartRound();
        r.broadcast(new PreVote(epoch, r.rankZxid()));
        if (r.quorum.reached(grants)) {
            startVote(epoch, false);
        }
    }

    /** Persists the vote for itself in {@code e} and asks for votes ({@code transfer}: at the leader's request). */
    void startVote(long e, boolean transfer) {
        long rank = r.rankZxid(); // before the epoch moves (matters only for the epochAheadOfHistory mutation)
        preVote = false;
        epoch = e;
        r.persistVote(e, r.id);
        restartRound();
        r.broadcast(new Vote(e, rank, transfer));
        if (r.quorum.reached(grants)) {
            r.becomeLeader();
        }
    }

    private void restartRound() {
        grants.clear();
        refusals.clear();
        grants.add(r.id);
        elapsed = 0;
        timeout = r.randomElectionTimeout();
    }

    @Override
    void step(int from, ReplicaMessage m) {
        if (m instanceof PreVoteAck a && preVote && a.forEpoch() == epoch) {
            (a.granted() ? grants : refusals).add(from);
            if (r.quorum.reached(grants)) {
                startVote(epoch, false);
            } else if (r.quorum.reached(refusals)) {
                r.becomeFollower(-1);
            }
        } else if (m instanceof VoteAck a && !preVote && a.epoch() == epoch) {
            (a.granted() ? grants : refusals).add(from);
            if (r.quorum.reached(grants)) {
                r.becomeLeader();
            } else if (r.quorum.reached(refusals)) {
                r.becomeFollower(-1);
            }
        } else if (ReplicaMessage.fromLeader(m)) {
            followLeader(from, m); // another replica won this epoch
        }
    }

    private void followLeader(int from, ReplicaMessage m) {
        r.becomeFollower(from);
        r.state.step(from, m);
    }

    @Override
    void membershipChanged() {
        if (!r.electable()) {
            r.becomeFollower(-1);
        }
    }

    @Override
    void tick() {
        if (++elapsed >= timeout) {
            startPreVote();
        }
    }
}
