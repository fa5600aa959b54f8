package dev.zkr.cli;

/** A command line that parsed but makes no sense (e.g. {@code create -e -c}): exit code {@link ExitCode#USAGE}. */
public final class UsageException extends RuntimeException {

    public UsageException(String message) {
        super(message);
    }
}
