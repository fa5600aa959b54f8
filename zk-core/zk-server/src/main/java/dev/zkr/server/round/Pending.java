package dev.zkr.server.round;

import dev.zkr.tree.Prepared;
import dev.zkr.tree.Txn;
import dev.zkr.tree.TxnHeader;
import dev.zkr.consensus.Zxid;
import dev.zkr.wire.Message;

/**
 * One sequenced item of the write order of a leader (or standalone server), in prepare order: a txn to log and
 * apply, or (txn null) a reply that must wait for every write sequenced before it (a write that failed validation, a
 * request of a closed or moved session). What else waits has a type of its own: a request's place in its
 * connection's reply order ({@link ReplyQueue.Slot}, which a Pending with a connection has), a follower's forwarded
 * request ({@code FollowerSide.Forward}), a sync waiting for its read point ({@link ReadPoints.ClientSync}).
 *
 * <p>Round state: touched only inside a round, under {@link Core}'s round lock, by whichever thread runs it
 * (docs/architecture.md, Threads); in the simulator, by its one thread.
 */
final class Pending {

    /** What to do once the item is applied. */
    enum Kind {
        /** A client's request (a write; or, refused without a txn, any ordered request): answer it. */
        CLIENT,
        /** A new session: answer the handshake. */
        CREATE_SESSION,
        /** The client closed its session: answer, then close the connection. */
        CLOSE_SESSION,
        /** The server expired the session: close its connection if it has one. */
        EXPIRE_SESSION,
        /** Server housekeeping (container cleanup): nobody to answer. */
        INTERNAL,
        /** On the leader: a follower's forwarded request; only a failure is answered, to {@link #origin}. */
        FORWARDED
    }

    final Kind kind;
    /** The connection to answer, or null. */
    final Connection connection;
    /** Its place in the connection's reply order, or null without a connection. */
    final ReplyQueue.Slot slot;
    /** The client request, or null for server-initiated items. */
    final Message.Request request;
    /** Header and txn, or null when there is nothing to log. */
    final TxnHeader header;
    final Txn txn;
    /**
     * For an item without txn: the failure to answer with, or null (OK). For an error txn: the failure it was made
     * from, whose detail text a local client's reply carries (the txn has the code and path only).
     */
    final Prepared.Failed failure;
    /**
     * A write sent again whose (session, xid) was applied or sequenced before ({@link Duplicates}): txn-less, it is
     * answered with the reply the tree saved for it once everything sequenced before it is answered.
     */
    boolean duplicate;
    /** FORWARDED: the follower that sent it, and the session it is of. */
    int origin;
    long sessionId;

    Pending(Kind kind, Connection connection, Message.Request request, TxnHeader header, Txn txn,
            Prepared.Failed failure) {
        this.kind = kind;
        this.connection = connection;
        this.slot = connection == null ? null : new ReplyQueue.Slot(connection);
        this.request = request;
        this.header = header;
        this.txn = txn;
        this.failure = failure;
    }

    /**
     * True if {@code header} is the txn of this item's request: same session and client xid ({@link TxnHeader#NO_XID}
     * for server-made requests). The zxid is not compared: a follower learns it only from the leader.
     */
    boolean answers(TxnHeader h) {
        return header != null && header.sessionId() == h.sessionId() && header.xid() == h.xid();
    }

    /** A write sent again: answered with its saved reply (see {@link #duplicate}). */
    static Pending duplicate(Kind kind, Connection c, Message.Request r) {
        Pending p = new Pending(kind, c, r, null, null, null);
        p.duplicate = true;
        return p;
    }

    /** The session the request is of: its connection's, or a forwarded one's. */
    long sessionId() {
        return connection != null ? connection.sessionId : sessionId;
    }

    long zxid() {
        return header == null ? 0 : header.zxid();
    }

    @Override
    public String toString() {
        return "Pending[" + kind + (txn == null ? "" : ", zxid " + Zxid.str(zxid()) + ", " + txn) + "]";
    }
}
