package dev.zkr.tree;

/**
 * The envelope every {@link Txn} is applied with.
 *
 * <p>{@code (sessionId, xid)} names the client request a txn was made for, so a server can pair a committed txn with
 * the request it is waiting to answer (a follower its forwarded requests) without relying on positions. Txns made by
 * the server itself carry {@link #NO_XID}: session creation (the handshake has no xid; {@code sessionId} is the new
 * session), expiry ({@code sessionId} is the expired session) and container cleanup ({@code sessionId} 0). Txns
 * logged before the xid was recorded (v1 log payloads, see {@link TxnCodec}) read back with {@link #NO_XID} too.
 *
 * @param zxid      the transaction id, strictly increasing in log order
 * @param time      epoch millis chosen by the leader when it prepared the txn (becomes ctime/mtime)
 * @param sessionId the session that issued the request (0 for server-internal txns such as container cleanup)
 * @param xid       the client's request id ({@code Message.Request.xid()}), or {@link #NO_XID}
 * @param acked     the lowest xid the client still waited for when it sent the request (it has the replies of every
 *                  earlier one: their saved replies are dropped when this txn is applied), or {@link #NO_XID} for
 *                  none (server-made txns, clients that do not say, docs/exactly-once.md)
 */
public record TxnHeader(long zxid, long time, long sessionId, int xid, int acked) {

    /** The xid of a txn no client request asked for (as ZooKeeper's server-made requests carry xid 0). */
    public static final int NO_XID = 0;

    /** A header without an acknowledgement ({@code acked} = {@link #NO_XID}). */
    public TxnHeader(long zxid, long time, long sessionId, int xid) {
        this(zxid, time, sessionId, xid, NO_XID);
    }
}
