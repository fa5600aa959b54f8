package dev.zkr.client;

import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Every failure of a zkr client operation: an unchecked exception with a {@link Code} and, where one applies,
 * the path. Each code has its own subclass ({@code ZkException.NoNode}, {@code ZkException.BadVersion}, ...) so
 * callers can catch exactly what they handle. The integer codes of ZooKeeper's codes are ZooKeeper's; zkr's own
 * are below -1000.
 */
public abstract class ZkException extends RuntimeException {

    /** Error codes. */
    public enum Code {
        /** no error. */
        OK(0),
        /** internal server error. */
        SYSTEM_ERROR(-1),
        /** not executed: an earlier operation of the multi failed. */
        RUNTIME_INCONSISTENCY(-2),
        /** a membership change is pending: ask again once it committed (ZooKeeper's ReconfigInProgress). */
        RECONFIG_IN_PROGRESS(-14),
        /** the member to promote has not caught up with the leader (ZooKeeper's NewConfigNoQuorum). */
        NEW_CONFIG_NO_QUORUM(-13),
        /** connection lost before the response arrived; the request may or may not have been applied. */
        CONNECTION_LOSS(-4),
        /** the message could not be encoded or decoded. */
        MARSHALLING_ERROR(-5),
        /** operation not implemented by this backend. */
        UNIMPLEMENTED(-6),
        /** no response within the request timeout. */
        OPERATION_TIMEOUT(-7),
        /** invalid arguments. */
        BAD_ARGUMENTS(-8),
        /** node does not exist. */
        NO_NODE(-101),
        /** not authorised. */
        NO_AUTH(-102),
        /** version does not match. */
        BAD_VERSION(-103),
        /** ephemeral nodes cannot have children. */
        NO_CHILDREN_FOR_EPHEMERALS(-108),
        /** node already exists. */
        NODE_EXISTS(-110),
        /** node has children. */
        NOT_EMPTY(-111),
        /** session expired. */
        SESSION_EXPIRED(-112),
        /** invalid ACL (empty, unknown scheme or permission bits, malformed id, {@code auth} without ids). */
        INVALID_ACL(-114),
        /** authentication failed. */
        AUTH_FAILED(-115),
        /** session moved to another server. */
        SESSION_MOVED(-118),
        /** no such watcher. */
        NO_WATCHER(-121),
        /** membership changes are off on this server (a standalone server; ZooKeeper's ReconfigDisabled). */
        RECONFIG_DISABLED(-123),
        /** request timed out on the server. */
        REQUEST_TIMEOUT(-122),
        /** server is overloaded, request refused. */
        THROTTLED(-127),
        /** invalid path. */
        INVALID_PATH(-1001),
        /** data exceeds the node size limit. */
        DATA_TOO_LARGE(-1002),
        /** the client is closed. */
        CLOSED(-1003),
        /** the waiting thread was interrupted. */
        INTERRUPTED(-1004),
        /** zkr: the session already owns the server's maximum number of ephemeral nodes. */
        TOO_MANY_EPHEMERALS(-1005),
        /** zkr: the write would make a log record larger than the server accepts. */
        TXN_TOO_LARGE(-1006);

        private static final Map<Integer, Code> BY_INT =
                Stream.of(values()).collect(Collectors.toMap(Code::intValue, Function.identity()));

        private final int intValue;

        Code(int intValue) {
            this.intValue = intValue;
        }

        /** The integer code (ZooKeeper's where ZooKeeper has it). */
        public int intValue() {
            return intValue;
        }

        /** The code with this integer value, or {@link #SYSTEM_ERROR} if unknown. */
        public static Code of(int intValue) {
            return BY_INT.getOrDefault(intValue, SYSTEM_ERROR);
        }
    }

    private final Code code;
    private final String path;
    private volatile List<OpResult> multiResults;

    protected ZkException(Code code, String path, String message) {
        super(describe(code, path, message));
        this.code = code;
        this.path = path;
    }

    private static String describe(Code code, String path, String message) {
        StringBuilder sb = new StringBuilder(code.name());
        if (path != null) {
            sb.append(" for ").append(path);
        }
        if (message != null && !message.isEmpty()) {
            sb.append(": ").append(message);
        }
        return sb.toString();
    }

    /** The error code. */
    public Code code() {
        return code;
    }

    /** The path the failed operation acted on, or null. */
    public String path() {
        return path;
    }

    /** For a failed {@code multi}: the per-operation results ({@link OpResult.ErrorResult}s); else null. */
    public List<OpResult> multiResults() {
        return multiResults;
    }

    /** Attaches the per-operation results of a failed multi; returns this. */
    public ZkException withMultiResults(List<OpResult> results) {
        this.multiResults = List.copyOf(results);
        return this;
    }

    /** Creates the subclass of this code. {@code OK} is not an error and is rejected. */
    public static ZkException of(Code code, String path, String message) {
        return switch (code) {
            case OK -> throw new IllegalArgumentException("OK is not an error");
            case SYSTEM_ERROR -> new SystemError(path, message);
            case RUNTIME_INCONSISTENCY -> new RuntimeInconsistency(path, message);
            case RECONFIG_IN_PROGRESS -> new ReconfigInProgress(path, message);
            case NEW_CONFIG_NO_QUORUM -> new NewConfigNoQuorum(path, message);
            case RECONFIG_DISABLED -> new ReconfigDisabled(path, message);
            case CONNECTION_LOSS -> new ConnectionLoss(path, message);
            case MARSHALLING_ERROR -> new MarshallingError(path, message);
            case UNIMPLEMENTED -> new Unimplemented(path, message);
            case OPERATION_TIMEOUT -> new OperationTimeout(path, message);
            case BAD_ARGUMENTS -> new BadArguments(path, message);
            case NO_NODE -> new NoNode(path, message);
            case NO_AUTH -> new NoAuth(path, message);
            case BAD_VERSION -> new BadVersion(path, message);
            case NO_CHILDREN_FOR_EPHEMERALS -> new NoChildrenForEphemerals(path, message);
            case NODE_EXISTS -> new NodeExists(path, message);
            case NOT_EMPTY -> new NotEmpty(path, message);
            case SESSION_EXPIRED -> new SessionExpired(path, message);
            case INVALID_ACL -> new InvalidAcl(path, message);
            case AUTH_FAILED -> new AuthFailed(path, message);
            case SESSION_MOVED -> new SessionMoved(path, message);
            case NO_WATCHER -> new NoWatcher(path, message);
            case REQUEST_TIMEOUT -> new RequestTimeout(path, message);
            case THROTTLED -> new Throttled(path, message);
            case INVALID_PATH -> new InvalidPath(path, message);
            case DATA_TOO_LARGE -> new DataTooLarge(path, message);
            case CLOSED -> new Closed(path, message);
            case INTERRUPTED -> new Interrupted(path, message);
            case TOO_MANY_EPHEMERALS -> new TooManyEphemerals(path, message);
            case TXN_TOO_LARGE -> new TxnTooLarge(path, message);
        };
    }

    /** Creates the subclass of this code with no extra message. */
    public static ZkException of(Code code, String path) {
        return of(code, path, null);
    }

    /** Internal server error. */
    public static final class SystemError extends ZkException {
        public SystemError(String path, String message) {
            super(Code.SYSTEM_ERROR, path, message);
        }
    }

    /** Not executed: an earlier operation of the multi failed. */
    public static final class RuntimeInconsistency extends ZkException {
        public RuntimeInconsistency(String path, String message) {
            super(Code.RUNTIME_INCONSISTENCY, path, message);
        }
    }

    /** Connection lost before the response arrived; the request may or may not have been applied. */
    public static final class ReconfigInProgress extends ZkException {
        public ReconfigInProgress(String path, String message) {
            super(Code.RECONFIG_IN_PROGRESS, path, message);
        }
    }

    public static final class NewConfigNoQuorum extends ZkException {
        public NewConfigNoQuorum(String path, String message) {
            super(Code.NEW_CONFIG_NO_QUORUM, path, message);
        }
    }

    public static final class ReconfigDisabled extends ZkException {
        public ReconfigDisabled(String path, String message) {
            super(Code.RECONFIG_DISABLED, path, message);
        }
    }

    public static final class ConnectionLoss extends ZkException {
        public ConnectionLoss(String path, String message) {
            super(Code.CONNECTION_LOSS, path, message);
        }
    }

    /** The message could not be encoded or decoded. */
    public static final class MarshallingError extends ZkException {
        public MarshallingError(String path, String message) {
            super(Code.MARSHALLING_ERROR, path, message);
        }
    }

    /** Operation not implemented by this backend. */
    public static final class Unimplemented extends ZkException {
        public Unimplemented(String path, String message) {
            super(Code.UNIMPLEMENTED, path, message);
        }
    }

    /** No response within the request timeout. */
    public static final class OperationTimeout extends ZkException {
        public OperationTimeout(String path, String message) {
            super(Code.OPERATION_TIMEOUT, path, message);
        }
    }

    /** Invalid arguments. */
    public static final class BadArguments extends ZkException {
        public BadArguments(String path, String message) {
            super(Code.BAD_ARGUMENTS, path, message);
        }
    }

    /** Node does not exist. */
    public static final class NoNode extends ZkException {
        public NoNode(String path, String message) {
            super(Code.NO_NODE, path, message);
        }
    }

    /** Not authorised. */
    public static final class NoAuth extends ZkException {
        public NoAuth(String path, String message) {
            super(Code.NO_AUTH, path, message);
        }
    }

    /** Version does not match. */
    public static final class BadVersion extends ZkException {
        public BadVersion(String path, String message) {
            super(Code.BAD_VERSION, path, message);
        }
    }

    /** Ephemeral nodes cannot have children. */
    public static final class NoChildrenForEphemerals extends ZkException {
        public NoChildrenForEphemerals(String path, String message) {
            super(Code.NO_CHILDREN_FOR_EPHEMERALS, path, message);
        }
    }

    /** Node already exists. */
    public static final class NodeExists extends ZkException {
        public NodeExists(String path, String message) {
            super(Code.NODE_EXISTS, path, message);
        }
    }

    /** Node has children. */
    public static final class NotEmpty extends ZkException {
        public NotEmpty(String path, String message) {
            super(Code.NOT_EMPTY, path, message);
        }
    }

    /** Session expired. */
    public static final class SessionExpired extends ZkException {
        private final boolean outcomeUnknown;

        public SessionExpired(String path, String message) {
            this(path, message, false);
        }

        /**
         * @param outcomeUnknown the failed call was a write in flight when the session was lost: it may or may not
         *                       have been applied (zkr's client, docs/exactly-once.md)
         */
        public SessionExpired(String path, String message, boolean outcomeUnknown) {
            super(Code.SESSION_EXPIRED, path, message);
            this.outcomeUnknown = outcomeUnknown;
        }

        /** True if this ends a write that was in flight when the session was lost: it may have been applied. */
        public boolean outcomeUnknown() {
            return outcomeUnknown;
        }
    }

    /** The ACL is invalid: empty, an unknown scheme or permission bits, a malformed id, {@code auth} without ids. */
    public static final class InvalidAcl extends ZkException {
        public InvalidAcl(String path, String message) {
            super(Code.INVALID_ACL, path, message);
        }
    }

    /** Authentication failed. */
    public static final class AuthFailed extends ZkException {
        public AuthFailed(String path, String message) {
            super(Code.AUTH_FAILED, path, message);
        }
    }

    /** Session moved to another server. */
    public static final class SessionMoved extends ZkException {
        public SessionMoved(String path, String message) {
            super(Code.SESSION_MOVED, path, message);
        }
    }

    /** No such watcher. */
    public static final class NoWatcher extends ZkException {
        public NoWatcher(String path, String message) {
            super(Code.NO_WATCHER, path, message);
        }
    }

    /** Request timed out on the server. */
    public static final class RequestTimeout extends ZkException {
        public RequestTimeout(String path, String message) {
            super(Code.REQUEST_TIMEOUT, path, message);
        }
    }

    /** Server is overloaded, request refused. */
    public static final class Throttled extends ZkException {
        public Throttled(String path, String message) {
            super(Code.THROTTLED, path, message);
        }
    }

    /** Invalid path. */
    public static final class InvalidPath extends ZkException {
        public InvalidPath(String path, String message) {
            super(Code.INVALID_PATH, path, message);
        }
    }

    /** Data exceeds the node size limit. */
    public static final class DataTooLarge extends ZkException {
        public DataTooLarge(String path, String message) {
            super(Code.DATA_TOO_LARGE, path, message);
        }
    }

    /** The client is closed. */
    public static final class Closed extends ZkException {
        public Closed(String path, String message) {
            super(Code.CLOSED, path, message);
        }
    }

    /** The waiting thread was interrupted. */
    public static final class Interrupted extends ZkException {
        public Interrupted(String path, String message) {
            super(Code.INTERRUPTED, path, message);
        }
    }

    /**
     * The session already owns the server's maximum number of ephemeral nodes ({@code maxEphemeralsPerSession}):
     * the create (or the whole multi) is refused and the connection stays up. Delete some, or use another session.
     */
    public static final class TooManyEphemerals extends ZkException {
        public TooManyEphemerals(String path, String message) {
            super(Code.TOO_MANY_EPHEMERALS, path, message);
        }
    }

    /**
     * The write (typically a large {@code multi}) would encode to a log record over the server's limit: it is
     * refused before it is logged, nothing is applied and the connection stays up. Split it into smaller writes.
     */
    public static final class TxnTooLarge extends ZkException {
        public TxnTooLarge(String path, String message) {
            super(Code.TXN_TOO_LARGE, path, message);
        }
    }
}
