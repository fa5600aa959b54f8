package dev.zkr.cli;

import dev.zkr.client.ZkException;

/**
 * Turns a failure into the one line {@code zkr} prints on stderr and its exit code ({@link ExitCode}). Pure.
 */
final class Failures {

    /** What to print and which code to exit with. */
    record Failure(String message, int exitCode) {
    }

    private Failures() {
    }

    static Failure of(Throwable t, String server) {
        if (t instanceof UsageException u) {
            return new Failure(u.getMessage(), ExitCode.USAGE);
        }
        if (t instanceof ZkException z) {
            return of(z, server);
        }
        if (t instanceof IllegalArgumentException e) {
            return new Failure(e.getMessage(), ExitCode.USAGE);
        }
        String m = t.getMessage();
        return new Failure(t.getClass().getSimpleName() + (m == null ? "" : ": " + m), ExitCode.FAILURE);
    }

    private static Failure of(ZkException z, String server) {
        String path = z.path() == null ? "" : z.path();
        return switch (z.code()) {
            case NO_NODE -> new Failure("no node " + path, ExitCode.NODE);
            case NODE_EXISTS -> new Failure("node " + path + " already exists", ExitCode.NODE);
            case BAD_VERSION -> new Failure("version mismatch on " + path + " (its version is not the one given)",
                    ExitCode.NODE);
            case NOT_EMPTY -> new Failure("node " + path + " has children (deleteall removes a subtree)",
                    ExitCode.NODE);
            case NO_CHILDREN_FOR_EPHEMERALS -> new Failure("cannot create " + path + ": its parent is ephemeral",
                    ExitCode.NODE);
            case INVALID_PATH -> new Failure("invalid path '" + path + "': " + detail(z), ExitCode.USAGE);
            case BAD_ARGUMENTS, DATA_TOO_LARGE -> new Failure(z.getMessage(), ExitCode.USAGE);
            case INVALID_ACL -> new Failure("invalid ACL for " + path + ": " + detail(z), ExitCode.USAGE);
            case NO_AUTH -> new Failure(path.isEmpty() ? "not allowed: " + detail(z) + " (authenticate with --auth "
                    + "scheme:auth)" : "not allowed on " + path + " (the node's ACL grants this session no such "
                    + "permission; authenticate with --auth scheme:auth)", ExitCode.NOT_ALLOWED);
            case AUTH_FAILED -> new Failure("authentication failed: " + detail(z), ExitCode.NOT_ALLOWED);
            case RECONFIG_IN_PROGRESS -> new Failure("another membership change is pending; try again once it "
                    + "committed", ExitCode.FAILURE);
            case NEW_CONFIG_NO_QUORUM -> new Failure("the server has not caught up with the leader yet; try again",
                    ExitCode.FAILURE);
            case RECONFIG_DISABLED -> new Failure("a standalone server's membership cannot change",
                    ExitCode.FAILURE);
            case CONNECTION_LOSS, OPERATION_TIMEOUT, REQUEST_TIMEOUT, SESSION_EXPIRED, SESSION_MOVED, CLOSED ->
                    new Failure("no connection to " + server + " (" + z.code().name().toLowerCase().replace('_', ' ')
                            + ")", ExitCode.CONNECTION);
            default -> new Failure(z.getMessage(), ExitCode.FAILURE);
        };
    }

    /** The message after the code and path, or the whole message. */
    private static String detail(ZkException z) {
        String m = z.getMessage();
        int colon = m.indexOf(": ");
        String d = colon >= 0 ? m.substring(colon + 2) : m;
        // a server message may repeat "CODE for path: " (e.g. INVALID_ACL): show it once
        while (d.startsWith(z.code().name()) && d.indexOf(": ") >= 0) {
            d = d.substring(d.indexOf(": ") + 2);
        }
        return d;
    }
}
