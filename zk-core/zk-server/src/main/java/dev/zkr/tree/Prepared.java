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
     * Validation failed; nothing was recorded in the pending overlay (the zxid may be reused). The server carries
     * this value (code and text, no exception, no stack trace) to the reply; only the client builds a
     * {@link ZkException} from the reply's code and message.
     *
     * @param code         the error
     * @param path         the path it concerns (the parent's for a missing parent), or null
     * @param detail       more text for the message, or null
     * @param multiResults for a multi, one {@link OpResult.ErrorResult} per op (OK before the failing op, its code,
     *                     RUNTIME_INCONSISTENCY after); else empty
     * @param message      what the client is told beyond the code, or null
     */
    record Failed(ZkException.Code code, String path, String detail, List<OpResult> multiResults)
            implements Prepared {
        public Failed {
            multiResults = List.copyOf(multiResults);
        }

        /** A failure without detail text. */
        public Failed(ZkException.Code code, String path, List<OpResult> multiResults) {
            this(code, path, null, multiResults);
        }

        /** A failure of a single request: no per-op results. */
        public static Failed of(ZkException.Code code, String path, String detail) {
            return new Failed(code, path, detail, List.of());
        }

        /**
         * The message of the reply: the same text as {@link ZkException#getMessage()} of the exception the client
         * builds ({@code CODE}, then {@code " for " + path}, then {@code ": " + detail} where present).
         */
        public String message() {
            StringBuilder sb = new StringBuilder(code.name());
            if (path != null) {
                sb.append(" for ").append(path);
            }
            if (detail != null && !detail.isEmpty()) {
                sb.append(": ").append(detail);
            }
            return sb.toString();
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
