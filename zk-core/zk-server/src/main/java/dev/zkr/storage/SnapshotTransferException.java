package dev.zkr.storage;

/**
 * A snapshot chunk that does not continue the transfer under way (another snapshot's, or not at the next offset):
 * the {@link SnapshotReceiver} refused it and started over from offset 0.
 */
public class SnapshotTransferException extends RuntimeException {

    public SnapshotTransferException(String message) {
        super(message);
    }
}
