package dev.zkr.server.round;

import dev.zkr.server.ZkServer;
import dev.zkr.client.ZkException;
import dev.zkr.server.peer.ServerMessage;
import dev.zkr.tree.ApplyResult;
import dev.zkr.tree.DataTree;
import dev.zkr.tree.Prepared;
import dev.zkr.tree.Request;
import dev.zkr.tree.Txn;
import dev.zkr.tree.TxnHeader;
import dev.zkr.wire.Message;
import dev.zkr.wire.MessageCodec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A follower's side of the pipeline. It forwards its clients' writes, closes and new sessions to the leader
 * ({@code Forward}, {@code ForwardSession}) and answers each when the txn that names it (session id and xid in the
 * txn header) is applied here, or when the leader's verdict came ({@code ForwardReply}) and the tree caught up with
 * it; it reports the sessions its clients touched ({@code Touches}). When the leader it forwarded to is gone — a
 * leader change, a reset of the link to it, or no answer for 2T — what it forwarded, and every sync waiting for a
 * read point, is answered CONNECTION_LOSS (a write's connection fenced first, {@link Fence}).
 *
 * <p>Round state: touched only inside a round, under {@link Core}'s round lock, by whichever thread runs it
 * (docs/architecture.md, Threads); in the simulator, by its one thread.
 */
final class FollowerSide {

    private static final Logger log = LoggerFactory.getLogger(ZkServer.class);

    /** A forwarded request is known by its session and client xid (the txn header carries both). */
    private record Key(long sessionId, int xid) {
    }

    /** A forwarded item waiting for the txn that names it, or for the leader's verdict. */
    private record Forward(Kind kind, ReplyQueue.Slot slot, Message.Request request, long sentAt) {
        enum Kind {
            /** A client's write: answered with what its txn did. */
            WRITE,
            /** The client closes its session. */
            CLOSE_SESSION,
            /** A new session for a handshake (no request): the handshake is answered. */
            NEW_SESSION
        }
    }

    private final DataTree tree;
    private final SessionGate gate;
    private final ReplyQueue replies;
    private final ReadPoints readPoints;
    private final Fence fence;
    private final LeaderLink leader;
    /** How long a forward may stay undecided (2T). */
    private final long holdMs;
    private final long touchIntervalMs;
    /** Forwarded items waiting for the txn that names them (or the leader's verdict). */
    private final Map<Key, Forward> forwarded = new HashMap<>();
    /** Sessions touched since the last report to the leader. */
    private final Set<Long> touched = new HashSet<>();
    private long lastTouched;
    private long nextTouchReport;
    private long nextForwardCheck;

    FollowerSide(DataTree tree, SessionGate gate, ReplyQueue replies, ReadPoints readPoints, Fence fence,
                 LeaderLink leader, long holdMs, long touchIntervalMs) {
        this.tree = tree;
        this.gate = gate;
        this.replies = replies;
        this.readPoints = readPoints;
        this.fence = fence;
        this.leader = leader;
        this.holdMs = holdMs;
        this.touchIntervalMs = touchIntervalMs;
    }

    /** True while forwarded items wait for the leader. */
    boolean hasForwards() {
        return !forwarded.isEmpty();
    }

    /** Hands a write or close to the leader; answered when its txn (or verdict) comes back. */
    void forward(Connection c, Message.Request r, long now) {
        leader.entrust();
        boolean close = r instanceof Message.CloseSessionRequest;
        Forward f = new Forward(close ? Forward.Kind.CLOSE_SESSION : Forward.Kind.WRITE, new ReplyQueue.Slot(c), r,
                now);
        Key key = new Key(c.sessionId, r.xid());
        Forward earlier = forwarded.get(key);
        if (earlier != null && earlier.slot().connection.closed && c.exactlyOnce) {
            forwarded.remove(key); // sent again after its connection was lost: this one gets the answer
        }
        if (forwarded.putIfAbsent(key, f) != null) {
            replies.answerLater(f.slot(), Replies.error(r.xid(), tree.lastZxid(), Prepared.Failed.of(
                    ZkException.Code.BAD_ARGUMENTS, null, "xid " + r.xid() + " is already in flight")));
            return;
        }
        ReplyQueue.enqueue(f.slot());
        if (close) {
            gate.markClosing(c.sessionId);
        }
        byte[] auth = AuthIds.encode(c.authIds);
        if (c.exactlyOnce && !close) {
            // with its client's acknowledgement, which the leader puts in the txn (docs/exactly-once.md)
            byte[] request = MessageCodec.encode(c.acked == TxnHeader.NO_XID ? r
                    : new Message.AckedRequest(c.acked, r));
            int prev = c.lastForwardedWrite;
            c.lastForwardedWrite = r.xid();
            leader.send(new ServerMessage.ForwardOnce(c.sessionId, request, auth, leader.epoch(), prev));
        } else {
            leader.send(new ServerMessage.Forward(c.sessionId, MessageCodec.encode(r), auth));
        }
    }

    /** Asks the leader for a new session for a held handshake; the handshake is answered when its txn is applied. */
    void newSession(Connection c, Request.CreateSession create, long now) {
        Forward f = new Forward(Forward.Kind.NEW_SESSION, new ReplyQueue.Slot(c), null, now);
        forwarded.put(new Key(create.sessionId(), TxnHeader.NO_XID), f);
        ReplyQueue.enqueue(f.slot());
        leader.entrust();
        leader.send(new ServerMessage.ForwardSession(create.sessionId(), create.timeoutMs(), create.password()));
    }

    /** The leader's verdict on a forwarded request that made no txn. */
    void onForwardReply(int from, ServerMessage.ForwardReply r) {
        Forward f = forwarded.remove(new Key(r.sessionId(), r.xid()));
        if (f == null) {
            return;
        }
        Message.Reply reply;
        try {
            reply = (Message.Reply) MessageCodec.decode(r.reply());
        } catch (RuntimeException e) {
            log.warn("malformed forwarded reply from server {}: {}", from, e.toString());
            reply = Replies.error(r.xid(), tree.lastZxid(), Prepared.Failed.of(ZkException.Code.CONNECTION_LOSS,
                    null, "the leader's answer was unreadable"));
        }
        if (f.kind() == Forward.Kind.NEW_SESSION) {
            ReplyQueue.dequeue(f.slot());
            gate.refuse(f.slot().connection, ZkException.Code.SYSTEM_ERROR, "the leader refused the new session");
            return;
        }
        replies.answerOnceApplied(f.slot(), reply, r.afterZxid());
    }

    /** A txn was applied here (the local item at the head did not wait for it): answers the item it names, if any. */
    void applied(TxnHeader h, Txn txn, ApplyResult result) {
        if (forwarded.isEmpty()) {
            return;
        }
        Forward f = forwarded.remove(new Key(h.sessionId(), h.xid()));
        if (f == null) {
            return;
        }
        long zxid = tree.lastZxid();
        switch (f.kind()) {
            case NEW_SESSION -> {
                ReplyQueue.dequeue(f.slot());
                if (txn instanceof Txn.CreateSession cs) {
                    gate.created(f.slot().connection, cs);
                    touch(cs.sessionId());
                }
            }
            case CLOSE_SESSION -> replies.answer(f.slot(), Replies.ok(f.request().xid(), zxid, null));
            case WRITE -> replies.answer(f.slot(), Replies.fromApply(f.request(), result, zxid, tree));
        }
    }

    /** The session is reported to the leader with the next {@code Touches}. */
    void touch(long sessionId) {
        if (sessionId != lastTouched) { // a socket read's requests are of one session: one set operation for all
            lastTouched = sessionId;
            touched.add(sessionId);
        }
    }

    /** Reports the sessions touched since the last report, when one is due. */
    void reportTouches(long now) {
        if (!touched.isEmpty() && now >= nextTouchReport) {
            long[] ids = touched.stream().mapToLong(Long::longValue).toArray();
            touched.clear();
            lastTouched = 0;
            leader.send(ServerMessage.Touches.of(ids));
            nextTouchReport = now + touchIntervalMs;
        }
    }

    /** The leader this server forwarded to is gone: its undecided forwards and syncs are answered CONNECTION_LOSS. */
    void leaderLost() {
        if (leader.stillFollowingIt()) {
            return;
        }
        loseForwards("the leader changed before this request was decided");
    }

    /** Answers every undecided forward and every sync waiting for a read point CONNECTION_LOSS ({@code why}). */
    void loseForwards(String why) {
        fence.cancelRead(); // its answer may be lost too: ask again
        if (forwarded.isEmpty() && !readPoints.hasClientSyncs()) {
            return;
        }
        Prepared.Failed lost = Prepared.Failed.of(ZkException.Code.CONNECTION_LOSS, null, why);
        List<Forward> forwards = new ArrayList<>(forwarded.values());
        forwarded.clear();
        List<ReadPoints.ClientSync> syncs = readPoints.takeClientSyncs(s -> true);
        for (Forward f : forwards) {
            lose(f, lost);
        }
        for (ReadPoints.ClientSync s : syncs) {
            fence.lose(s.slot(), s.request(), lost);
        }
        gate.clearClosing();
    }

    /**
     * Forwards and syncs undecided for longer than 2T (lost on a silently cut link) are answered CONNECTION_LOSS;
     * checked every 100 ms.
     */
    void expireStale(long now) {
        if ((forwarded.isEmpty() && !readPoints.hasClientSyncs()) || now < nextForwardCheck) {
            return;
        }
        nextForwardCheck = now + 100;
        List<Key> stale = new ArrayList<>();
        forwarded.forEach((k, f) -> {
            if (now - f.sentAt() > holdMs) {
                stale.add(k);
            }
        });
        List<ReadPoints.ClientSync> staleSyncs = readPoints.takeClientSyncs(s -> now - s.sentAt() > holdMs);
        if (!staleSyncs.isEmpty()) {
            Prepared.Failed lost = Prepared.Failed.of(ZkException.Code.CONNECTION_LOSS, null,
                    "the leader did not answer this sync within " + holdMs + " ms");
            for (ReadPoints.ClientSync s : staleSyncs) {
                fence.lose(s.slot(), s.request(), lost);
            }
        }
        if (stale.isEmpty()) {
            return;
        }
        List<Forward> forwards = new ArrayList<>();
        for (Key k : stale) {
            Forward f = forwarded.remove(k);
            if (f != null) {
                forwards.add(f);
            }
        }
        Prepared.Failed lost = Prepared.Failed.of(ZkException.Code.CONNECTION_LOSS, null,
                "the leader did not decide this request within " + holdMs + " ms");
        for (Forward f : forwards) {
            lose(f, lost);
        }
        fence.cancelRead();
    }

    private void lose(Forward f, Prepared.Failed lost) {
        if (f.kind() == Forward.Kind.NEW_SESSION) {
            ReplyQueue.dequeue(f.slot());
            gate.refuse(f.slot().connection, ZkException.Code.CONNECTION_LOSS,
                    "the leader changed while the session was created");
        } else {
            fence.lose(f.slot(), f.request(), lost);
        }
    }
}
