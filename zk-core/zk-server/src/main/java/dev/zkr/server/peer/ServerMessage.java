package dev.zkr.server.peer;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * The server-level peer messages (docs/architecture.md, Write on a follower; docs/ensemble.md, Sessions), next to the
 * consensus core's own: how a follower hands its clients' writes, session handshakes, syncs and session touches to the
 * leader, and how the leader answers what it cannot answer through the replicated log. Client requests and replies
 * travel as client wire frames ({@code dev.zkr.wire.MessageCodec}), so the peer port needs no client classes of its
 * own.
 */
public sealed interface ServerMessage {

    /**
     * A client's write (create, delete, setData, setAcl, multi, close) for the leader to sequence; {@code request}
     * framed; {@code auth} the ids the client's connection authenticated as (encoded by {@code AuthIds}), which the
     * leader checks the write's ACLs with, as ZooKeeper's followers forward a request's authInfo.
     */
    record Forward(long sessionId, byte[] request, byte[] auth) implements ServerMessage {
        @Override
        public String toString() {
            return "Forward[0x" + Long.toHexString(sessionId) + ", " + request.length + " B]";
        }
    }

    /**
     * A {@link Forward} from a connection whose client re-sends writes after a lost reply (zkr's own protocol): the
     * leader answers a (session, xid) it already applied or sequenced with the saved reply instead of sequencing it
     * again (docs/exactly-once.md). {@code epoch} is the reign the follower sent it to: a leader takes it only in that
     * reign, so a follower's writes are never applied with an earlier one missing (a leader that was a candidate for a
     * moment drops what reaches it then, and may be re-elected before its follower notices). {@code prevXid} is the
     * xid of the write the follower forwarded before it for the same client connection (0: none): a leader that
     * neither saved nor sequenced that one lost it on the way, and drops this one too, so a session's writes are never
     * applied out of order. Peer id 252.
     */
    record ForwardOnce(long sessionId, byte[] request, byte[] auth, long epoch, int prevXid) implements ServerMessage {
        @Override
        public String toString() {
            return "ForwardOnce[0x" + Long.toHexString(sessionId) + ", " + request.length + " B]";
        }
    }

    /** A new session the follower picked id and password for; the leader sequences its CreateSession txn. */
    record ForwardSession(long sessionId, int timeoutMs, byte[] password) implements ServerMessage {
        @Override
        public String toString() {
            return "ForwardSession[0x" + Long.toHexString(sessionId) + ", " + timeoutMs + " ms]";
        }
    }

    /**
     * The leader's answer to a forwarded request that produced no txn (it failed): the follower answers it with
     * {@code reply} (a framed client reply) once it has applied {@code afterZxid}, so the answer comes after the
     * session's earlier writes.
     */
    record ForwardReply(long sessionId, int xid, long afterZxid, byte[] reply) implements ServerMessage {
        @Override
        public String toString() {
            return "ForwardReply[0x" + Long.toHexString(sessionId) + "/" + xid + " after 0x"
                    + Long.toHexString(afterZxid) + "]";
        }
    }

    /** A follower's sync: the leader answers with a read point confirmed by a quorum (ReadIndex). */
    record SyncRead(long ctx) implements ServerMessage {
    }

    /** The read point of a {@link SyncRead}; {@code readZxid} 0 = refused (the leader is not in service). */
    record SyncReadReply(long ctx, long readZxid) implements ServerMessage {
    }

    /**
     * A client re-attaches its session to this follower: the leader checks the session is live and the password
     * right, records this follower as the session's owner, and answers with its applied zxid.
     */
    record Attach(long sessionId, byte[] password, long ctx) implements ServerMessage {
        @Override
        public String toString() {
            return "Attach[0x" + Long.toHexString(sessionId) + ", ctx " + ctx + "]";
        }
    }

    /** The leader's verdict on an {@link Attach}: live (with the zxid to apply first) or expired. */
    record AttachReply(long ctx, boolean live, long zxid) implements ServerMessage {
    }

    /**
     * Sessions of this follower's clients that were active since its last report (they stay alive), packed 8 bytes
     * per id (a byte array, whose length the peer Kryo bounds).
     */
    record Touches(byte[] packed) implements ServerMessage {
        public static Touches of(long[] sessionIds) {
            ByteBuffer b = ByteBuffer.allocate(sessionIds.length * 8);
            for (long id : sessionIds) {
                b.putLong(id);
            }
            return new Touches(b.array());
        }

        /** The session ids (a trailing partial id is ignored). */
        public long[] sessionIds() {
            ByteBuffer b = ByteBuffer.wrap(packed);
            long[] ids = new long[packed.length / 8];
            for (int i = 0; i < ids.length; i++) {
                ids[i] = b.getLong();
            }
            return ids;
        }

        @Override
        public String toString() {
            return "Touches" + Arrays.toString(sessionIds());
        }
    }
}
