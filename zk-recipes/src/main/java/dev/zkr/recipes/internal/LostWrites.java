package dev.zkr.recipes.internal;

import dev.zkr.client.ZkClient;
import dev.zkr.client.ZkException;

/**
 * What a write that failed without its answer may have done, per backend ({@link ZkClient#exactlyOnceWrites()}).
 * ConnectionLoss and OperationTimeout: it may have been applied, on every backend. SessionExpired: on Apache
 * ZooKeeper (and clients without exactly-once writes) the write was never sent, since a write in flight fails with
 * ConnectionLoss when the connection drops; on zkr's client a write in flight when the session was lost fails with
 * SessionExpired saying its outcome is unknown, so it too may have been applied.
 */
public final class LostWrites {

    private LostWrites() {
    }

    /** True if a write that failed with {@code e} on {@code client} may have been applied all the same. */
    public static boolean mayHaveApplied(ZkClient client, Throwable e) {
        if (e instanceof ZkException.ConnectionLoss || e instanceof ZkException.OperationTimeout) {
            return true;
        }
        return e instanceof ZkException.SessionExpired expired && client.exactlyOnceWrites()
                && expired.outcomeUnknown();
    }
}
