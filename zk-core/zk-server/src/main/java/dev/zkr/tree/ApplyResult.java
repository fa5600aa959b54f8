package dev.zkr.tree;

import dev.zkr.client.OpResult;
import dev.zkr.client.ZkException;

import java.util.List;

/**
 * What applying one txn produced: the outcome for the client and the watch triggers, in firing order.
 *
 * @param code     OK, or the error of an {@link Txn.Error} txn
 * @param path     the error path of an {@link Txn.Error}, else null
 * @param results  per-op results: one for a single create/delete/setData/check ({@link OpResult.CreateResult},
 *                 {@link OpResult.DeleteResult}, {@link OpResult.SetDataResult}, {@link OpResult.CheckResult}),
 *                 one per op for a multi ({@link OpResult.ErrorResult}s for a failed multi), none for sessions
 * @param triggers the watch triggers to hand to {@link WatchTable#trigger}
 */
public record ApplyResult(ZkException.Code code, String path, List<OpResult> results, List<WatchTrigger> triggers) {

    public ApplyResult {
        results = List.copyOf(results);
        triggers = List.copyOf(triggers);
    }

    /** True if the txn was not an error txn. */
    public boolean ok() {
        return code == ZkException.Code.OK;
    }

    /** The only result of a single-op txn. */
    public OpResult single() {
        if (results.size() != 1) {
            throw new IllegalStateException("not a single-op result: " + results);
        }
        return results.get(0);
    }
}
