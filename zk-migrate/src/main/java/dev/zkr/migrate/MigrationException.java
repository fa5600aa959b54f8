package dev.zkr.migrate;

/** An import or export that cannot be done (corrupt or unsupported input, unusable target); nothing was written. */
public final class MigrationException extends RuntimeException {
    public MigrationException(String message) {
        super(message);
    }

    public MigrationException(String message, Throwable cause) {
        super(message, cause);
    }
}
