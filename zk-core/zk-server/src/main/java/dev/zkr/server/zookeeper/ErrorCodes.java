package dev.zkr.server.zookeeper;

import dev.zkr.client.ZkException;

/**
 * zkr's error codes as ZooKeeper's ({@code KeeperException.Code}, the {@code err} of a ReplyHeader, an
 * ErrorResult, a MultiHeader). zkr's codes that ZooKeeper has are ZooKeeper's own numbers; zkr's own (below -1000)
 * become the ZooKeeper code a ZooKeeper client handles the same way.
 */
final class ErrorCodes {

    static final int OK = 0;
    static final int MARSHALLING_ERROR = -5;
    static final int UNIMPLEMENTED = -6;
    static final int BAD_ARGUMENTS = -8;
    static final int NO_NODE = -101;
    static final int INVALID_ACL = -114;
    static final int AUTH_FAILED = -115;
    static final int RECONFIG_DISABLED = -123;
    static final int QUOTA_EXCEEDED = -125;

    private ErrorCodes() {
    }

    /** The ZooKeeper code a ZooKeeper client gets for a zkr code. */
    static int toZooKeeper(ZkException.Code code) {
        return switch (code) {
            // the same number on both sides
            case OK, SYSTEM_ERROR, RUNTIME_INCONSISTENCY, CONNECTION_LOSS, MARSHALLING_ERROR, UNIMPLEMENTED,
                 OPERATION_TIMEOUT, BAD_ARGUMENTS, NO_NODE, NO_AUTH, BAD_VERSION, NO_CHILDREN_FOR_EPHEMERALS,
                 NODE_EXISTS, NOT_EMPTY, SESSION_EXPIRED, INVALID_ACL, AUTH_FAILED, SESSION_MOVED, NO_WATCHER,
                 REQUEST_TIMEOUT, THROTTLED, RECONFIG_IN_PROGRESS, NEW_CONFIG_NO_QUORUM, RECONFIG_DISABLED -> code.intValue();
            // ZooKeeper refuses a path that fails its validation with BADARGUMENTS
            case INVALID_PATH -> BAD_ARGUMENTS;
            // ZooKeeper has no per-node or per-txn limit below its frame limit (where it drops the connection):
            // an argument the server will not take, which a client must not retry as it is
            case DATA_TOO_LARGE, TXN_TOO_LARGE -> BAD_ARGUMENTS;
            // a limit the server sets on what a session may hold
            case TOO_MANY_EPHEMERALS -> QUOTA_EXCEEDED;
            // a zkr client's own states, never on the wire
            case CLOSED, INTERRUPTED -> ZkException.Code.SYSTEM_ERROR.intValue();
        };
    }

    /** The ZooKeeper code for a zkr int code (one a zkr reply carries). */
    static int toZooKeeper(int zkrCode) {
        return toZooKeeper(ZkException.Code.of(zkrCode));
    }
}
