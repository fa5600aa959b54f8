package dev.zkr.cli;

/**
 * The exit codes of {@code zkr}, for scripts. Every failure also prints one line on stderr.
 */
public final class ExitCode {

    /** The command did what it was asked. */
    public static final int OK = 0;
    /** Any other failure (server error, unexpected exception). */
    public static final int FAILURE = 1;
    /** Bad command line: unknown command or option, missing or malformed argument, bad hex/base64 data, bad path. */
    public static final int USAGE = 2;
    /**
     * The node is not as the command needs it: no such node, already exists, version mismatch, has children,
     * ephemeral parent.
     */
    public static final int NODE = 3;
    /** No session: the servers could not be reached, the connection or session was lost, or a request timed out. */
    public static final int CONNECTION = 4;
    /**
     * Not allowed: the node's ACL grants this session's ids no such permission (NoAuth), or the server refused an
     * authentication ({@code --auth}, {@code addauth}: AuthFailed).
     */
    public static final int NOT_ALLOWED = 5;

    private ExitCode() {
    }
}
