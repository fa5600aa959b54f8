package dev.zkr.storage;

/** A failure of durable storage (log or snapshots): an I/O error, a full disk, an unusable data directory. */
public class StorageException extends RuntimeException {

    public StorageException(String message) {
        super(message);
    }

    public StorageException(String message, Throwable cause) {
        super(message, cause);
    }
}
