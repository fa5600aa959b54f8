package dev.zkr.server.round;

import dev.zkr.server.ZkServer;
import dev.zkr.client.Id;
import dev.zkr.client.ZkException;
import dev.zkr.consensus.Role;
import dev.zkr.server.peer.ServerMessage;
import dev.zkr.tree.DataTree;
import dev.zkr.tree.Prepared;
import dev.zkr.tree.Request;
import dev.zkr.tree.TxnHeader;
import dev.zkr.wire.Message;
import dev.zkr.wire.MessageCodec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A leader's side of the pipeline. It sequences its followers' requests — forwarded writes and closes, new sessions
 * ({@code Forward}, {@code ForwardSession}) — and answers the followers' read point requests ({@code SyncRead}) and
 * attach checks ({@code Attach}); requests that come while it is a leader getting ready (its EPOCH record not
 * applied yet) are held until it is ready. It knows which server each session's client is connected to, and answers
 * SESSION_MOVED to a straggler elsewhere. When it steps down, everything it sequenced and did not apply is answered
 * CONNECTION_LOSS and its followers' requests are dropped.
 *
 * <p>Round state: touched only inside a round, under {@link Core}'s round lock, by whichever thread runs it
 * (docs/architecture.md, Threads); in the simulator, by its one thread.
 */
final class LeaderSide {

    private static final Logger log = LoggerFactory.getLogger(ZkServer.class);

    /** A follower's request that came before this leader could sequence. */
    private record PeerRequest(int from, ServerMessage message) {
    }

    private final DataTree tree;
    private final SessionGate gate;
    private final PrepStage prep;
    private final Replication replication;
    private final Housekeeping housekeeping;
    private final PeerLink peers;
    private final RoleView role;
    private final ReadPoints readPoints;
    private final Fence fence;
    private final Sequencer sequencer;
    private final Duplicates duplicates;
    private final int selfId;
    /** The server each session's client is connected to (SESSION_MOVED for stragglers elsewhere). */
    private final Map<Long, Integer> owners = new HashMap<>();
    /** Peer requests that arrived before this leader could sequence. */
    private final ArrayDeque<PeerRequest> heldPeer = new ArrayDeque<>();
    /**
     * Sessions whose CreateSession this leader sequenced and has not applied yet, each with the zxid of its txn and
     * the followers' requests of it that came meanwhile, in arrival order: a follower that counts its own disk and
     * this leader's may apply the create, answer the handshake and forward the session's first write before this
     * leader learns that the create committed (its ack lost with a reset link and sent again after the write); the
     * requests wait for the create instead of finding no session (SESSION_EXPIRED for a live session).
     */
    private final Map<Long, Creating> creating = new HashMap<>();

    private record Creating(long zxid, ArrayDeque<PeerRequest> held) {
    }

    LeaderSide(DataTree tree, SessionGate gate, PrepStage prep, Replication replication, Housekeeping housekeeping,
               PeerLink peers, RoleView role, ReadPoints readPoints, Fence fence, Sequencer sequencer,
               Duplicates duplicates, int selfId) {
        this.tree = tree;
        this.gate = gate;
        this.prep = prep;
        this.replication = replication;
        this.housekeeping = housekeeping;
        this.peers = peers;
        this.role = role;
        this.readPoints = readPoints;
        this.fence = fence;
        this.sequencer = sequencer;
        this.duplicates = duplicates;
        this.selfId = selfId;
    }

    /** A follower's request: handled once this server is an in-service leader; dropped if it is not the leader. */
    void onRequest(int from, ServerMessage m, long now) {
        if (role.leaderReady()) {
            handle(from, m, now);
        } else if (role.get().role() == Role.LEADER) {
            heldPeer.addLast(new PeerRequest(from, m)); // a leader getting ready: its EPOCH record is not applied yet
        }
        // a follower drops it: the sender learns of the leader change and fails what it forwarded
    }

    /** This leader is ready: the followers' requests held meanwhile are handled, in arrival order. */
    void releaseHeld(long now) {
        while (!heldPeer.isEmpty()) {
            PeerRequest h = heldPeer.pollFirst();
            handle(h.from(), h.message(), now);
        }
        if (!creating.isEmpty()) {
            releaseCreated(now);
        }
    }

    /** The requests of sessions whose CreateSession this leader applied since: handled, in arrival order. */
    private void releaseCreated(long now) {
        long applied = tree.lastZxid();
        List<Creating> done = new ArrayList<>();
        for (var it = creating.values().iterator(); it.hasNext(); ) {
            Creating c = it.next();
            if (c.zxid() <= applied) {
                it.remove();
                done.add(c);
            }
        }
        for (Creating c : done) {
            for (PeerRequest h : c.held()) {
                handle(h.from(), h.message(), now);
            }
        }
    }

    /** The session a follower's request is of (a forward, an attach), or 0. */
    private static long sessionOf(ServerMessage m) {
        if (m instanceof ServerMessage.Forward f) {
            return f.sessionId();
        } else if (m instanceof ServerMessage.ForwardOnce f) {
            return f.sessionId();
        } else if (m instanceof ServerMessage.Attach a) {
            return a.sessionId();
        }
        return 0;
    }

    private void handle(int from, ServerMessage m, long now) {
        Creating pending = creating.isEmpty() ? null : creating.get(sessionOf(m));
        if (pending != null) {
            pending.held().addLast(new PeerRequest(from, m));
            return;
        }
        if (m instanceof ServerMessage.Forward f) {
            onForward(from, f.sessionId(), f.request(), f.auth(), false, now);
        } else if (m instanceof ServerMessage.ForwardOnce f) {
            // sent to an earlier reign, or after a write lost on the way: dropped; its follower loses it (at the new
            // reign, or after 2T) and closes the client's connection, whose client sends them all again in order
            if (f.epoch() == role.epoch() && (f.prevXid() == 0 || duplicates.known(f.sessionId(), f.prevXid()))) {
                onForward(from, f.sessionId(), f.request(), f.auth(), true, now);
            }
        } else if (m instanceof ServerMessage.ForwardSession f) {
            owners.put(f.sessionId(), from);
            Pending p = prep.prepare(Pending.Kind.FORWARDED, null, null,
                    new Request.CreateSession(f.sessionId(), f.timeoutMs(), f.password()), f.sessionId());
            p.origin = from;
            p.sessionId = f.sessionId();
            sequencer.sequence(p);
            if (p.txn != null) {
                creating.put(f.sessionId(), new Creating(p.header.zxid(), new ArrayDeque<>()));
            }
        } else if (m instanceof ServerMessage.SyncRead s) {
            replication.readIndex(readPoints.add(new ReadPoints.PeerSync(from, s.ctx())));
        } else if (m instanceof ServerMessage.Attach a) {
            boolean live = gate.live(a.sessionId(), a.password());
            if (live) {
                if (owners.getOrDefault(a.sessionId(), selfId) == selfId) {
                    gate.moved(a.sessionId());
                }
                owners.put(a.sessionId(), from);
                gate.touchRemote(a.sessionId(), now);
            }
            peers.send(from, new ServerMessage.AttachReply(a.ctx(), live, tree.lastZxid()));
        }
    }

    private void onForward(int from, long sid, byte[] request, byte[] auth, boolean once, long now) {
        Message.Request r;
        List<Id> authIds;
        int acked = TxnHeader.NO_XID;
        try {
            r = (Message.Request) MessageCodec.decode(request);
            if (r instanceof Message.AckedRequest a) { // a ForwardOnce's write with its client's acknowledgement
                acked = once ? a.lowestUnanswered() : TxnHeader.NO_XID;
                r = a.request();
            }
            if (r == null || r instanceof Message.AckedRequest) {
                throw new IllegalArgumentException("an acknowledgement without a request");
            }
            authIds = AuthIds.decode(auth);
        } catch (RuntimeException e) {
            log.warn("dropping a malformed forwarded request from server {}: {}", from, e.toString());
            return;
        }
        if (once && PrepStage.isWrite(r) && duplicates.seen(sid, r.xid())) {
            // applied or sequenced already: answered with what it did, whichever server owns the session now (a
            // SESSION_MOVED here would tell its client that a write it applied failed; it applies nothing)
            Pending p = Pending.duplicate(Pending.Kind.FORWARDED, null, r);
            p.origin = from;
            p.sessionId = sid;
            sequencer.sequence(p);
            return;
        }
        Integer owner = owners.get(sid);
        Prepared.Failed failure = null;
        if (owner != null && owner != from) {
            failure = Prepared.Failed.of(ZkException.Code.SESSION_MOVED, null, "the session moved to server "
                    + owner);
        } else if (!gate.touchSession(sid, now)) {
            failure = Pipeline.SESSION_GONE;
        }
        Pending p;
        if (failure != null) {
            p = new Pending(Pending.Kind.FORWARDED, null, r, null, null, failure);
        } else {
            owners.put(sid, from);
            if (r instanceof Message.CloseSessionRequest) {
                gate.markClosing(sid);
                p = prep.prepare(Pending.Kind.FORWARDED, null, r, new Request.CloseSession(sid), sid);
            } else if (PrepStage.isWrite(r)) {
                p = prep.write(Pending.Kind.FORWARDED, null, r, sid, authIds, PrepStage.acked(once, acked, r));
                if (once && p.txn != null) {
                    duplicates.sequenced(sid, r.xid());
                }
            } else {
                p = new Pending(Pending.Kind.FORWARDED, null, r, null, null, Prepared.Failed.of(
                        ZkException.Code.BAD_ARGUMENTS, null, "not a write: " + r.getClass().getSimpleName()));
            }
        }
        p.origin = from;
        p.sessionId = sid;
        sequencer.sequence(p);
    }

    /** A follower's item completed without a txn: its failure goes back to the follower, as of {@code zxid}. */
    void answerFailed(Pending p, long zxid) {
        int xid = p.request == null ? TxnHeader.NO_XID : p.request.xid();
        answer(p, Replies.error(xid, zxid, p.failure), zxid);
    }

    /** A follower's item is answered with {@code reply} (a failure, a duplicate's saved reply), as of {@code zxid}. */
    void answer(Pending p, Message.Reply reply, long zxid) {
        peers.send(p.origin, new ServerMessage.ForwardReply(p.sessionId, reply.xid(), zxid,
                MessageCodec.encode(reply)));
    }

    /** True if the session's client moved to another server. */
    boolean movedAway(long sessionId) {
        Integer owner = owners.get(sessionId);
        return owner != null && owner != selfId;
    }

    /** The session's client is connected to this server. */
    void ownedHere(long sessionId) {
        owners.put(sessionId, selfId);
    }

    /** The session is closed. */
    void closed(long sessionId) {
        owners.remove(sessionId);
        duplicates.closed(sessionId);
    }

    /** This server leads a new epoch, in service: it starts sequencing in it, every session's clock restarted. */
    void startEpoch(long epoch, long now) {
        prep.startEpoch(epoch);
        duplicates.reset();
        gate.touchAll(now);
        gate.clearClosing();
        owners.clear();
        creating.clear();
    }

    /** This server is not the leader (any more): the followers' requests it holds or answers are dropped. */
    void notLeading() {
        heldPeer.clear();
        creating.clear();
        readPoints.dropPeerSyncs();
    }

    /**
     * This server stopped leading: what it sequenced and did not apply ({@code inFlight}) may never commit, so every
     * local item still waiting is answered CONNECTION_LOSS in order (it may or may not have happened, ZooKeeper's
     * contract), the pending changes are forgotten and peers' requests dropped (their senders fail them the same way).
     */
    void stepDown(ArrayDeque<Pending> inFlight) {
        Prepared.Failed lost = Prepared.Failed.of(ZkException.Code.CONNECTION_LOSS, null,
                "the leader changed before this request was decided");
        while (!inFlight.isEmpty()) {
            lose(inFlight.pollFirst(), lost);
        }
        prep.reset();
        duplicates.reset();
        housekeeping.reset();
        gate.clearClosing();
        owners.clear();
        heldPeer.clear();
        creating.clear();
        readPoints.dropPeerSyncs();
    }

    private void lose(Pending p, Prepared.Failed lost) {
        Connection c = p.connection;
        if (c == null) {
            return;
        }
        if (p.kind == Pending.Kind.CREATE_SESSION) {
            ReplyQueue.dequeue(p.slot);
            gate.refuse(c, ZkException.Code.CONNECTION_LOSS, "the leader changed while the session was created");
        } else if (p.request != null) {
            fence.lose(p.slot, p.request, lost);
        }
    }
}
