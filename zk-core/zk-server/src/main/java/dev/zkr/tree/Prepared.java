package dev.zkr.tree;

import dev.zkr.client.OpResult;
import dev.zkr.client.ZkException;

import java.util.ArrayList;
import java.util.List;

/** The outcome of {@link TxnPreparer#prepare}: a txn to log and apply, or a validation failure. */
public sealed interface Prepared {

    /** Validation passed: log and apply this txn under the zxid given to prepare. */
    record Ok(Txn txn) implements Prepared {
    }

    /**
     * Validation failed; nothing was recorded in the pending overlay (the zxid may be reused).
     *
     * @param code         the error
     * @param path         the path it concerns (the parent's for a missing parent), or null
     * @param multiResults for a multi, one {@link OpResult.ErrorResult} per op (OK before the failing op, its code,
     *                     RUNTIME_INCONSISTENCY after); else empty
     * @param message      what the client is told beyond the code, or null
     */
    record Failed(ZkException.Code code, String path, List<OpResult> multiResults, String message)
            implements Prepared {
        public Failed {
            multiResults = List.copyOf(multiResults);
        }

        /** A failure with no message beyond its code. */
        public Failed(ZkException.Code code, String path, List<OpResult> multiResults) {
            this(code, path, multiResults, null);
        }

        /** The exception to answer the client with. */
        public ZkException toException() {
            ZkException e = ZkException.of(code, path, message);
            return multiResults.isEmpty() ? e : e.withMultiResults(multiResults);
        }

        /** The same failure as an {@link Txn.Error}, for servers that sequence failures through the log. */
        public Txn.Error toTxn() {
            List<ZkException.Code> codes = new ArrayList<>(multiResults.size());
            for (OpResult r : multiResults) {
                codes.add(((OpResult.ErrorResult) r).code());
            }
            return new Txn.Error(code, path, codes);
        }
    }
}
