package dev.zkr.server.round;

import dev.zkr.server.peer.ServerMessage;
import dev.zkr.tree.DataTree;
import dev.zkr.tree.Prepared;
import dev.zkr.wire.Message;

import java.util.IdentityHashMap;
import java.util.Map;

/**
 * The fence. A connection told CONNECTION_LOSS for a write a leader change (or a lost link to the leader) left
 * undecided is fenced: its next requests, reads too, are held ({@link HeldRequests}) until this server got a read
 * point asked for after the loss — a fence read, ReadIndex at the leader, {@code SyncRead} on a follower — and
 * applied it. A new reign's read point is at least its EPOCH record, which decides every earlier record, so a client
 * that reads to learn whether its write happened gets the true answer (ZooKeeper closes such connections instead).
 * Fence rounds: a connection fenced in generation g is released by the first fence read issued after it.
 *
 * <p>Round state: touched only inside a round, under {@link Core}'s round lock, by whichever thread runs it
 * (docs/architecture.md, Threads); in the simulator, by its one thread.
 */
final class Fence {

    private final DataTree tree;
    private final Replication replication;
    private final RoleView role;
    private final LeaderLink leader;
    private final ReplyQueue replies;
    private final ReadPoints readPoints;
    /** How long a fence read may go unanswered before it is asked again (2T). */
    private final long holdMs;
    /** Fenced connections, each with the generation it was fenced in. */
    private final Map<Connection, Long> fenced = new IdentityHashMap<>();
    private long generation;
    /** The generation of the fence read issued last. */
    private long issued;
    /** The ctx of the fence read out ({@link ReadPoints}), or 0. */
    private long ctx;
    private long sentAt;
    /** The read point of the last fence read answered, and its generation. */
    private long readZxid = -1;
    private long readGeneration;

    Fence(DataTree tree, Replication replication, RoleView role, LeaderLink leader, ReplyQueue replies,
          ReadPoints readPoints, long holdMs) {
        this.tree = tree;
        this.replication = replication;
        this.role = role;
        this.leader = leader;
        this.replies = replies;
        this.readPoints = readPoints;
        this.holdMs = holdMs;
    }

    /**
     * Answers a request a leader change (or a lost link) left undecided: CONNECTION_LOSS, its connection fenced first
     * unless it is a sync (which changes nothing).
     */
    void lose(ReplyQueue.Slot slot, Message.Request request, Prepared.Failed lost) {
        Connection c = slot.connection;
        if (c.exactlyOnce && PrepStage.isWrite(request)) {
            // its client re-sends the write, and every later one, on its next connection, where a write that was
            // applied is answered with its saved reply: closing keeps the session's writes in order, where answering
            // this one and serving the next would not (docs/exactly-once.md)
            if (!c.closed) {
                c.closed = true;
                c.control(Connection.Control.CLOSE);
            }
            return;
        }
        if (!(request instanceof Message.SyncRequest) && !c.closed) {
            fenced.put(c, ++generation); // first: the requests the answer releases are held behind the fence
        }
        replies.answer(slot, Replies.error(request.xid(), tree.lastZxid(), lost));
    }

    /** True if the connection is fenced and its fence not lifted yet: its requests are held. */
    boolean blocks(Connection c) {
        return fenced.containsKey(c) && !lifted(fenced.get(c));
    }

    /** True if the connection's request may be routed now; a connection whose fence is lifted is unfenced. */
    boolean admits(Connection c) {
        if (!fenced.isEmpty() && fenced.containsKey(c)) {
            if (!lifted(fenced.get(c))) {
                return false;
            }
            fenced.remove(c);
        }
        return true;
    }

    void disconnected(Connection c) {
        fenced.remove(c);
    }

    /**
     * True once a fence read issued after generation {@code needed} came back and this server applied its read point:
     * every write forwarded or proposed before the loss is decided and visible here.
     */
    private boolean lifted(long needed) {
        return readGeneration >= needed && readZxid >= 0 && tree.lastZxid() >= readZxid;
    }

    /** The fence read's answer: its read point ({@code <= 0}: refused, asked again). */
    void readPoint(long zxid) {
        ctx = 0;
        if (zxid > 0) {
            readZxid = zxid;
            readGeneration = issued;
        } else {
            issued = readGeneration; // refused: ask again
        }
    }

    /** The fence read out will not be answered (or its answer may be lost): it is asked again. */
    void cancelRead() {
        if (ctx != 0) {
            readPoints.cancelFence(ctx);
            ctx = 0;
            issued = readGeneration;
        }
    }

    /**
     * The round's fence work: a fence read unanswered for 2T (lost on a silently cut link) is asked again; a fence
     * read is issued for connections fenced since the last one, once this server serves.
     */
    void round(long now) {
        if (ctx != 0 && now - sentAt > holdMs) {
            cancelRead();
        }
        if (fenced.isEmpty() || issued >= generation || ctx != 0) {
            return;
        }
        if (!role.leaderReady() && !role.following()) {
            return;
        }
        ctx = readPoints.add(ReadPoints.FENCE);
        sentAt = now;
        issued = generation;
        if (role.leaderReady()) {
            replication.readIndex(ctx);
        } else {
            leader.entrust();
            leader.send(new ServerMessage.SyncRead(ctx));
        }
    }
}
