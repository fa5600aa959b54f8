package dev.zkr.storage;

/** The snapshot asked for (to send it to a follower) is not on this server's disk. */
public class NoSuchSnapshotException extends StorageException {

    public NoSuchSnapshotException(String message) {
        super(message);
    }
}
