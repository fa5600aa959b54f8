package dev.zkr.server.zookeeper;

/**
 * ZooKeeper's request types ({@code RequestHeader.type}, {@code MultiHeader.type}, ZooKeeper 3.9's
 * {@code ZooDefs.OpCode}) and the reserved xids of its client ({@code ClientCnxn}).
 */
final class OpCode {

    static final int NOTIFICATION = 0;
    static final int CREATE = 1;
    static final int DELETE = 2;
    static final int EXISTS = 3;
    static final int GET_DATA = 4;
    static final int SET_DATA = 5;
    static final int GET_ACL = 6;
    static final int SET_ACL = 7;
    static final int GET_CHILDREN = 8;
    static final int SYNC = 9;
    static final int PING = 11;
    static final int GET_CHILDREN2 = 12;
    static final int CHECK = 13;
    static final int MULTI = 14;
    static final int CREATE2 = 15;
    static final int RECONFIG = 16;
    static final int CHECK_WATCHES = 17;
    static final int REMOVE_WATCHES = 18;
    static final int CREATE_CONTAINER = 19;
    static final int DELETE_CONTAINER = 20;
    static final int CREATE_TTL = 21;
    static final int MULTI_READ = 22;
    static final int AUTH = 100;
    static final int SET_WATCHES = 101;
    static final int SASL = 102;
    static final int GET_EPHEMERALS = 103;
    static final int GET_ALL_CHILDREN_NUMBER = 104;
    static final int SET_WATCHES2 = 105;
    static final int ADD_WATCH = 106;
    static final int WHO_AM_I = 107;
    static final int CREATE_SESSION = -10;
    static final int CLOSE_SESSION = -11;
    static final int ERROR = -1;

    /** xid of a watch notification (server to client). */
    static final int NOTIFICATION_XID = -1;
    /** xid of a ping and of its reply (ZooKeeper answers every ping at this xid). */
    static final int PING_XID = -2;
    /** xid of an auth packet and of its reply. */
    static final int AUTH_XID = -4;
    /** xid of the setWatches / setWatches2 requests a client sends when it reconnects, and of their replies. */
    static final int SET_WATCHES_XID = -8;

    private OpCode() {
    }

    /** The opcode's name as ZooKeeper spells it in {@code ZooDefs.OpCode}, or its number. */
    static String name(int type) {
        return switch (type) {
            case NOTIFICATION -> "notification";
            case CREATE -> "create";
            case DELETE -> "delete";
            case EXISTS -> "exists";
            case GET_DATA -> "getData";
            case SET_DATA -> "setData";
            case GET_ACL -> "getACL";
            case SET_ACL -> "setACL";
            case GET_CHILDREN -> "getChildren";
            case SYNC -> "sync";
            case PING -> "ping";
            case GET_CHILDREN2 -> "getChildren2";
            case CHECK -> "check";
            case MULTI -> "multi";
            case CREATE2 -> "create2";
            case RECONFIG -> "reconfig";
            case CHECK_WATCHES -> "checkWatches";
            case REMOVE_WATCHES -> "removeWatches";
            case CREATE_CONTAINER -> "createContainer";
            case DELETE_CONTAINER -> "deleteContainer";
            case CREATE_TTL -> "createTTL";
            case MULTI_READ -> "multiRead";
            case AUTH -> "auth";
            case SET_WATCHES -> "setWatches";
            case SASL -> "sasl";
            case GET_EPHEMERALS -> "getEphemerals";
            case GET_ALL_CHILDREN_NUMBER -> "getAllChildrenNumber";
            case SET_WATCHES2 -> "setWatches2";
            case ADD_WATCH -> "addWatch";
            case WHO_AM_I -> "whoAmI";
            case CREATE_SESSION -> "createSession";
            case CLOSE_SESSION -> "closeSession";
            case ERROR -> "error";
            default -> "opcode " + type;
        };
    }
}
