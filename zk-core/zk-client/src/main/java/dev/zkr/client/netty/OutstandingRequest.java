package dev.zkr.client.netty;

import dev.zkr.client.AddWatchMode;
import dev.zkr.client.CreateMode;
import dev.zkr.client.Op;
import dev.zkr.client.Watcher;
import dev.zkr.client.WatcherType;
import dev.zkr.wire.Message;

import java.util.concurrent.CompletableFuture;

/**
 * One request of a client from submission to completion: its arguments, the future of its caller, the xid it got
 * when it was written and its deadline. Runs (as a task of the event thread) to complete the caller's future with
 * the result or error set on the I/O thread.
 */
final class OutstandingRequest implements Runnable {

    /** Request kinds; the last three are the client's own and never reach a caller. */
    enum Kind {
        CREATE, DELETE, EXISTS, GET_DATA, SET_DATA, GET_CHILDREN, MULTI, SYNC, ADD_WATCH, REMOVE_WATCHES,
        GET_ACL, SET_ACL, AUTH, MULTI_READ, GET_EPHEMERALS, GET_ALL_CHILDREN_NUMBER, WHO_AM_I, MEMBERS, RECONFIG,
        PING, SET_WATCHES, CLOSE_SESSION, AUTH_RESEND;

        boolean internal() {
            return this == PING || this == SET_WATCHES || this == CLOSE_SESSION || this == AUTH_RESEND;
        }

        /** A change the server applies through its log: re-sent after a lost reply, answered exactly once. */
        boolean write() {
            return this == CREATE || this == DELETE || this == SET_DATA || this == MULTI || this == SET_ACL;
        }
    }

    final Kind kind;
    final String path;
    final CompletableFuture<Object> future;
    final long deadlineNanos;

    // arguments (which ones are set depends on the kind)
    byte[] data;
    int version;
    CreateMode createMode;
    /** create: the TTL of a TTL mode, else -1. */
    long ttlMs = -1;
    Watcher watcher;
    Op[] ops;
    AddWatchMode addWatchMode;
    /** ADD_WATCH: the events carry the node's data. */
    boolean addWatchWithData;
    WatcherType watcherType;
    WatchRegistry.Snapshot watches;
    long relativeZxid;
    /** create (null = the open ACL) and setAcl. */
    java.util.List<dev.zkr.client.Acl> acls;
    /** RECONFIG. */
    dev.zkr.client.MembershipChange change;
    /** AUTH and AUTH_RESEND. */
    dev.zkr.client.ZkClientConfig.AuthInfo authInfo;

    /** The future belongs to a blocking call (no user callbacks on it): the I/O thread may complete it. */
    volatile boolean blocking;

    // set on the I/O thread
    /** The xid it got when first written (0 before); kept when it is sent again on a new connection. */
    int xid;
    /** Times it was sent again because the server said its session had moved away. */
    int movedResends;
    /** True once an outcome is decided (result, error, timeout): later outcomes are ignored. */
    boolean done;
    private Object result;
    private Throwable error;

    OutstandingRequest(Kind kind, String path, long deadlineNanos) {
        this.kind = kind;
        this.path = path;
        this.deadlineNanos = deadlineNanos;
        this.future = new CompletableFuture<>();
    }

    /** Records the outcome; returns false if one was already recorded. The caller then runs this on the event thread. */
    boolean succeed(Object value) {
        if (done) {
            return false;
        }
        done = true;
        result = value;
        return true;
    }

    boolean fail(Throwable t) {
        if (done) {
            return false;
        }
        done = true;
        error = t;
        return true;
    }

    @Override
    public void run() {
        if (error != null) {
            future.completeExceptionally(error);
        } else {
            future.complete(result);
        }
    }

    /** The wire request for the xid this request got. */
    Message.Request toMessage() {
        return switch (kind) {
            case CREATE -> createMode.isTtl()
                    ? new Message.CreateTtlRequest(xid, path, data, createMode,
                            acls == null ? null : acls.toArray(new dev.zkr.client.Acl[0]), ttlMs)
                    : acls == null ? new Message.CreateRequest(xid, path, data, createMode)
                    : new Message.CreateAclRequest(xid, path, data, createMode, acls.toArray(new dev.zkr.client.Acl[0]));
            case GET_ACL -> new Message.GetAclRequest(xid, path);
            case SET_ACL -> new Message.SetAclRequest(xid, path, acls.toArray(new dev.zkr.client.Acl[0]), version);
            case AUTH, AUTH_RESEND -> new Message.AuthRequest(xid, authInfo.scheme(), authInfo.auth());
            case DELETE -> new Message.DeleteRequest(xid, path, version);
            case EXISTS -> new Message.ExistsRequest(xid, path, watcher != null);
            case GET_DATA -> new Message.GetDataRequest(xid, path, watcher != null);
            case SET_DATA -> new Message.SetDataRequest(xid, path, data, version);
            case GET_CHILDREN -> new Message.GetChildrenRequest(xid, path, watcher != null);
            case MULTI -> new Message.MultiRequest(xid, ops);
            case MULTI_READ -> new Message.MultiReadRequest(xid, ops);
            case GET_EPHEMERALS -> new Message.GetEphemeralsRequest(xid, path);
            case GET_ALL_CHILDREN_NUMBER -> new Message.GetAllChildrenNumberRequest(xid, path);
            case WHO_AM_I -> new Message.WhoAmIRequest(xid);
            case MEMBERS -> new Message.GetMembersRequest(xid);
            case RECONFIG -> new Message.ReconfigRequest(xid, change);
            case SYNC -> new Message.SyncRequest(xid, path);
            case ADD_WATCH -> addWatchWithData ? new Message.AddWatchWithDataRequest(xid, path, addWatchMode)
                    : new Message.AddWatchRequest(xid, path, addWatchMode);
            case REMOVE_WATCHES -> new Message.RemoveWatchesRequest(xid, path, watcherType);
            case PING -> new Message.PingRequest(xid);
            case SET_WATCHES -> watches.withData()
                    ? new Message.SetWatchesWithDataRequest(xid, relativeZxid, watches.data(), watches.exist(),
                            watches.child(), watches.persistent(), watches.recursive(), watches.persistentWithData(),
                            watches.recursiveWithData())
                    : new Message.SetWatchesRequest(xid, relativeZxid, watches.data(), watches.exist(),
                            watches.child(), watches.persistent(), watches.recursive());
            case CLOSE_SESSION -> new Message.CloseSessionRequest(xid);
        };
    }

    @Override
    public String toString() {
        return kind + (path == null ? "" : " " + path) + " xid=" + xid;
    }
}
