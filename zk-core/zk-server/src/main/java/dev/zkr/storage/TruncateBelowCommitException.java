package dev.zkr.storage;

/**
 * A {@link TxnLog#truncateAfter} would remove records at or below the log's commit mark: committed history never
 * goes back, so the request is refused and the log is unchanged (a consensus peer asking for it is wrong).
 */
public class TruncateBelowCommitException extends StorageException {

    public TruncateBelowCommitException(String message) {
        super(message);
    }
}
