package dev.zkr.tree;

import dev.zkr.client.OpResult;
import dev.zkr.client.ZkException;

import java.util.List;

/**
 * What a client write produced when its txn was applied, kept in the replicated state so that the same write sent
 * again (same session and xid, after a lost reply) is answered with it instead of being applied twice
 * (docs/exactly-once.md).
 *
 * @param xid     the client's request id
 * @param zxid    the zxid of the txn that applied it
 * @param code    OK, or the error of an error txn
 * @param path    the error path of an error txn, else null
 * @param results the per-op results, as in {@link ApplyResult#results()}
 */
public record SavedReply(int xid, long zxid, ZkException.Code code, String path, List<OpResult> results) {

    public SavedReply {
        results = List.copyOf(results);
    }

    /** The apply result the reply is built from (no watch triggers: they fired when the txn was applied). */
    public ApplyResult toApplyResult() {
        return new ApplyResult(code, path, results, List.of());
    }
}
