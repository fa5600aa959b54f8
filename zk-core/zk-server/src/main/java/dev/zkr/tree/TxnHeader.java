package dev.zkr.tree;

/**
 * The envelope every {@link Txn} is applied with.
 *
 * @param zxid      the transaction id, strictly increasing in log order
 * @param time      epoch millis chosen by the leader when it prepared the txn (becomes ctime/mtime)
 * @param sessionId the session that issued the request (0 for server-internal txns such as container cleanup)
 */
public record TxnHeader(long zxid, long time, long sessionId) {
}
