package dev.zkr.server.round;

import dev.zkr.client.ZkException;
import dev.zkr.server.peer.ServerMessage;
import dev.zkr.tree.DataTree;
import dev.zkr.tree.Prepared;
import dev.zkr.wire.Message;

import java.util.List;

/**
 * Routes each client request in its connection's order: a handshake to the session gate (standalone) or to the
 * held handshakes (ensemble); a read served from the tree at once, unless an earlier request of its connection still
 * waits; an ordered request — write, sync, close — sequenced (an in-service leader), forwarded (a follower) or held
 * (no leader yet, or a fenced connection). Invariant of a connection's queue ({@link ReplyQueue}): its slots come
 * first, then the requests not yet routed (reads waiting behind an ordered request, and anything after such a read);
 * an ordered request is routed only when no read of its connection still waits, so a read never sees a write its
 * session sent after it. Requests that waited in a queue or were held come back here when their turn comes.
 *
 * <p>Round state: touched only inside a round, under {@link Core}'s round lock, by whichever thread runs it
 * (docs/architecture.md, Threads); in the simulator, by its one thread.
 */
final class ClientRequests implements ReplyQueue.Router {

    private final DataTree tree;
    private final SessionGate gate;
    private final ReadStage reads;
    private final PrepStage prep;
    private final Replication replication;
    private final RoleView role;
    private final ReplyQueue replies;
    private final ReadPoints readPoints;
    private final HeldRequests held;
    private final Fence fence;
    private final HeldHandshakes handshakes;
    private final LeaderSide leader;
    private final FollowerSide follower;
    private final LeaderLink leaderLink;
    private final Sequencer sequencer;
    private final Duplicates duplicates;
    private final boolean ensemble;
    /** The time of the round being ended, or of the last one ended (what is routed in between counts from it). */
    private long lastRoundAt;

    ClientRequests(DataTree tree, SessionGate gate, ReadStage reads, PrepStage prep, Replication replication, RoleView role,
                   ReplyQueue replies, ReadPoints readPoints, HeldRequests held, Fence fence,
                   HeldHandshakes handshakes, LeaderSide leader, FollowerSide follower, LeaderLink leaderLink,
                   Sequencer sequencer, Duplicates duplicates, boolean ensemble) {
        this.tree = tree;
        this.gate = gate;
        this.reads = reads;
        this.prep = prep;
        this.replication = replication;
        this.role = role;
        this.replies = replies;
        this.readPoints = readPoints;
        this.held = held;
        this.fence = fence;
        this.handshakes = handshakes;
        this.leader = leader;
        this.follower = follower;
        this.leaderLink = leaderLink;
        this.sequencer = sequencer;
        this.duplicates = duplicates;
        this.ensemble = ensemble;
    }

    /** A round ends at {@code now}: what is routed from now on counts from it. */
    void roundAt(long now) {
        lastRoundAt = now;
    }

    /** A message from a client connection (or one held before, handed in again). */
    void onMessage(Connection c, Message m, long now) {
        if (c.closed) {
            return;
        }
        if (m instanceof Message.AckedRequest a) {
            // any acknowledgement the client sent is safe to apply with any later write: it had those replies
            c.acknowledged(a.lowestUnanswered());
            m = a.request();
        }
        if (held.holdBehind(c, m)) {
            return;
        }
        if (m instanceof Message.ConnectRequest cr) {
            if (!ensemble) {
                gate.connect(c, cr, now, sequencer);
            } else {
                handshakes.hold(c, cr, now);
            }
            return;
        }
        Message.Request r = (Message.Request) m;
        if (!gate.touch(c, now)) {
            // answered in order behind the session's earlier requests
            if (role.leaderReady() && !ReplyQueue.hasUnrouted(c)) {
                sequencer.sequence(new Pending(Pending.Kind.CLIENT, c, r, null, null, Pipeline.SESSION_GONE));
            } else {
                replies.answerLater(new ReplyQueue.Slot(c), Replies.error(r.xid(), tree.lastZxid(),
                        Pipeline.SESSION_GONE));
            }
            return;
        }
        if (ensemble && !role.leaderReady()) {
            follower.touch(c.sessionId);
        }
        dispatch(c, r, now);
    }

    /** Hands every held request in again, in order (those still to be held are held anew). */
    void releaseHeld(long now) {
        if (!held.isEmpty()) {
            held.release().forEach((c, q) -> q.forEach(m -> onMessage(c, m, now)));
        }
    }

    /** Routes a request of an attached session, in its connection's order. */
    private void dispatch(Connection c, Message.Request r, long now) {
        if (!fence.admits(c)) {
            held.hold(c, r);
            return;
        }
        boolean write = PrepStage.isWrite(r);
        boolean ordered = write || r instanceof Message.SyncRequest || r instanceof Message.CloseSessionRequest;
        if (!ordered) {
            if (c.queue.isEmpty()) {
                reads.serve(c, r);
            } else {
                ReplyQueue.addUnrouted(c, r);
            }
            return;
        }
        if (ReplyQueue.hasUnrouted(c)) {
            ReplyQueue.addUnrouted(c, r); // behind a waiting read: routed when that read is served
            return;
        }
        if (ensemble && !role.leaderReady() && !role.following()) {
            held.hold(c, r);
        } else if (role.leaderReady()) {
            if (write && c.exactlyOnce && duplicates.seen(c.sessionId, r.xid())) {
                // first: a write applied already gets what it did even if its session moved on since (it applies
                // nothing; SESSION_MOVED would tell its client that a write it applied failed)
                sequencer.sequence(Pending.duplicate(Pending.Kind.CLIENT, c, r));
            } else if (ensemble && leader.movedAway(c.sessionId)) {
                sequencer.sequence(new Pending(Pending.Kind.CLIENT, c, r, null, null, Prepared.Failed.of(
                        ZkException.Code.SESSION_MOVED, null, "the session moved to another server")));
            } else if (write) {
                Pending p = prep.write(c, r);
                if (c.exactlyOnce && p.txn != null) {
                    duplicates.sequenced(c.sessionId, r.xid());
                }
                sequencer.sequence(p);
            } else if (r instanceof Message.SyncRequest) {
                sync(c, r);
            } else {
                sequencer.sequence(gate.close(c, r, sequencer));
            }
        } else if (r instanceof Message.SyncRequest) {
            leaderLink.entrust(); // the leader answers its read point
            sync(c, r);
        } else {
            follower.forward(c, r, now);
        }
    }

    /** A linearizable sync: answered once a quorum confirmed the read point and the tree applied it. */
    private void sync(Connection c, Message.Request r) {
        ReadPoints.ClientSync sync = new ReadPoints.ClientSync(new ReplyQueue.Slot(c), r, lastRoundAt);
        ReplyQueue.enqueue(sync.slot());
        long ctx = readPoints.add(sync);
        if (role.leaderReady()) {
            replication.readIndex(ctx);
        } else {
            leaderLink.send(new ServerMessage.SyncRead(ctx));
        }
    }

    // ---- what waited in a connection's queue (ReplyQueue.Router) ----------------------------------------------------

    @Override
    public boolean holding(Connection c) {
        return held.holds(c) || fence.blocks(c);
    }

    @Override
    public void holdAhead(Connection c, List<Message.Request> requests) {
        held.holdAhead(c, requests);
    }

    @Override
    public void route(Connection c, Message.Request r) {
        if (!held.holdBehind(c, r)) {
            dispatch(c, r, lastRoundAt);
        }
    }
}
