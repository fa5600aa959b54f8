package dev.zkr.storage;

/** Snapshot bytes received for installation are not an intact snapshot (truncated, bad header or checksum). */
public class CorruptSnapshotException extends StorageException {

    public CorruptSnapshotException(String message) {
        super(message);
    }
}
