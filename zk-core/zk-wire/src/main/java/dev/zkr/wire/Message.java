package dev.zkr.wire;

import dev.zkr.client.Acl;
import dev.zkr.client.AddWatchMode;
import dev.zkr.client.ClientInfo;
import dev.zkr.client.CreateMode;
import dev.zkr.client.EnsembleMember;
import dev.zkr.client.MembershipChange;
import dev.zkr.client.Op;
import dev.zkr.client.OpResult;
import dev.zkr.client.Stat;
import dev.zkr.client.WatchedEvent;
import dev.zkr.client.WatcherType;

/**
 * Every frame on a client connection carries exactly one Message. A connection starts with
 * {@link ConnectRequest} (client) answered by {@link ConnectResponse} or {@link ConnectRefused} (server). Then the
 * client sends {@link Request}s, each with a client-chosen {@code xid} (increasing; negative ids are reserved), the
 * server answers each with one {@link Reply} carrying the same xid, in request order, and pushes
 * {@link WatchEvent}s, which it always sends before any reply that reflects the same change.
 * {@link ProtocolError} is sent by either side just before it closes a connection it cannot continue.
 */
public sealed interface Message {

    /** Version of this protocol; the handshake refuses any other. */
    int PROTOCOL_VERSION = 1;

    /**
     * The version a server reports in its {@link ConnectResponse} when it takes {@link AckedRequest}s (clients
     * still send {@link #PROTOCOL_VERSION}, which every server takes; a client sends acknowledgements only to a
     * server that reported this, and clients before it ignore the reported version).
     */
    int ACKS_VERSION = 2;

    // ---- handshake ----------------------------------------------------------------------------------------------

    /**
     * Opens (sessionId 0) or re-attaches (sessionId + password) a session.
     *
     * @param lastZxidSeen highest zxid the client has seen; a server that is behind refuses the connection
     */
    record ConnectRequest(int protocolVersion, long sessionId, byte[] password, int sessionTimeoutMs,
                          long lastZxidSeen) implements Message {
    }

    /** The session is attached: its id, password, negotiated timeout and the server's node size limit. */
    record ConnectResponse(int protocolVersion, long sessionId, byte[] password, int negotiatedTimeoutMs,
                           int maxDataSize) implements Message {
    }

    /**
     * The session cannot be attached: {@code SESSION_EXPIRED} for an unknown or expired session (the client
     * reports LOST), otherwise an error code with a message (the client tries another server).
     */
    record ConnectRefused(int code, String message) implements Message {
    }

    /** Sent before closing a connection because of a protocol violation; the message says why. */
    record ProtocolError(int code, String message) implements Message {
    }

    // ---- requests -----------------------------------------------------------------------------------------------

    /** A client request; answered by exactly one {@link Reply} with the same xid. */
    sealed interface Request extends Message {
        int xid();
    }

    record CreateRequest(int xid, String path, byte[] data, CreateMode mode) implements Request {
    }

    record DeleteRequest(int xid, String path, int version) implements Request {
    }

    record ExistsRequest(int xid, String path, boolean watch) implements Request {
    }

    record GetDataRequest(int xid, String path, boolean watch) implements Request {
    }

    record SetDataRequest(int xid, String path, byte[] data, int version) implements Request {
    }

    record GetChildrenRequest(int xid, String path, boolean watch) implements Request {
    }

    record MultiRequest(int xid, Op[] ops) implements Request {
    }

    record SyncRequest(int xid, String path) implements Request {
    }

    record AddWatchRequest(int xid, String path, AddWatchMode mode) implements Request {
    }

    /**
     * {@link AddWatchRequest} for a watch whose created and data-changed events carry the node's data and Stat
     * ({@link WatchEventWithData}); zkr's own protocol only.
     */
    record AddWatchWithDataRequest(int xid, String path, AddWatchMode mode) implements Request {
    }

    /** Removes this session's watches of the given type on the path; NO_WATCHER if it has none. */
    record RemoveWatchesRequest(int xid, String path, WatcherType type) implements Request {
    }

    /**
     * Re-registers the session's watches after a reconnect. The server fires at once the events the client missed
     * since {@code relativeZxid} (ZooKeeper's setWatches) and registers the rest.
     */
    record SetWatchesRequest(int xid, long relativeZxid, String[] dataWatches, String[] existWatches,
                             String[] childWatches, String[] persistentWatches,
                             String[] persistentRecursiveWatches) implements Request {
    }

    /**
     * {@link SetWatchesRequest} from a client that also holds persistent watches with data: those paths are in
     * {@code persistentWatches}/{@code persistentRecursiveWatches} and again in the two with-data arrays.
     */
    record SetWatchesWithDataRequest(int xid, long relativeZxid, String[] dataWatches, String[] existWatches,
                                     String[] childWatches, String[] persistentWatches,
                                     String[] persistentRecursiveWatches, String[] persistentWithData,
                                     String[] persistentRecursiveWithData) implements Request {
    }

    /** Create with an ACL ({@link CreateRequest} creates with {@code world:anyone} ALL). */
    record CreateAclRequest(int xid, String path, byte[] data, CreateMode mode, Acl[] acls) implements Request {
    }

    /**
     * Create a TTL node ({@link CreateMode#isTtl()}) with an ACL (null = {@code world:anyone} ALL) and a TTL in
     * milliseconds; answered as {@link CreateAclRequest}.
     */
    record CreateTtlRequest(int xid, String path, byte[] data, CreateMode mode, Acl[] acls, long ttlMs)
            implements Request {
    }

    /** The node's ACL and Stat ({@link AclBody}). */
    record GetAclRequest(int xid, String path) implements Request {
    }

    /** Replace the node's ACL if its aversion matches (-1 = any); answered with a {@link StatBody}. */
    record SetAclRequest(int xid, String path, Acl[] acls, int aversion) implements Request {
    }

    /**
     * Authenticates the connection (ZooKeeper's auth packet): answered OK, or AUTH_FAILED (the connection stays,
     * unauthenticated for this scheme). Applies to the requests sent after it.
     */
    record AuthRequest(int xid, String scheme, byte[] auth) implements Request {
        @Override
        public String toString() {
            return "AuthRequest[" + xid + ", " + scheme + "]"; // never the secret
        }
    }

    /**
     * Read operations ({@code Op.GetData}, {@code Op.GetChildren}) served together from one state of the tree,
     * each failing alone; answered with a {@link MultiBody} of per-op results (ZooKeeper's multiRead).
     */
    record MultiReadRequest(int xid, Op[] ops) implements Request {
    }

    /** The session's ephemeral paths that start with {@code prefix} ({@link PathsBody}, sorted). */
    record GetEphemeralsRequest(int xid, String prefix) implements Request {
    }

    /** The number of all descendants of the node ({@link CountBody}); READ on the node, NO_NODE if missing. */
    record GetAllChildrenNumberRequest(int xid, String path) implements Request {
    }

    /** The connection's identities ({@link ClientInfoBody}). */
    record WhoAmIRequest(int xid) implements Request {
    }

    /**
     * Whether this session holds a watch of the type on the path, without removing it: OK, or NO_WATCHER
     * (ZooKeeper's checkWatches).
     */
    record CheckWatchesRequest(int xid, String path, WatcherType type) implements Request {
    }

    /**
     * A write with the client's acknowledgement: {@code lowestUnanswered} is the lowest xid the client still waits
     * for a reply to (this request's own at most), so the server may drop the replies it saved for the session's
     * earlier writes (docs/exactly-once.md). Answered as {@code request}; sent only to a server that reported
     * {@link #ACKS_VERSION}. {@code request} is a write, never an {@code AckedRequest}.
     */
    record AckedRequest(int lowestUnanswered, Request request) implements Request {
        @Override
        public int xid() {
            return request.xid();
        }
    }

    /**
     * The ensemble's members, as the server applied them last (committed; docs/membership.md), or its configured
     * member lines while the ensemble never changed shape ({@link MembersBody}; empty for a standalone server).
     */
    record GetMembersRequest(int xid) implements Request {
    }

    /**
     * A membership change (docs/membership.md), for a superuser session only (NO_AUTH otherwise); ordered and
     * forwarded to the leader as a write; answered once it committed with the membership after it
     * ({@link MembersBody}), or RECONFIG_IN_PROGRESS (another change pending: ask again), NEW_CONFIG_NO_QUORUM (the
     * observer to promote has not caught up), BAD_ARGUMENTS (the change does not apply), RECONFIG_DISABLED
     * (standalone).
     */
    record ReconfigRequest(int xid, MembershipChange change) implements Request {
    }

    /**
     * ZooKeeper's reconfig (opcode 16) as its client sends it ({@code ReconfigRequest}: the joining servers'
     * {@code server.N=...} specs and the leaving ids, each comma-separated, or null; the non-incremental new members;
     * the config version it applies to, -1 for any), translated by the server's ZooKeeper port. Planned like
     * {@link ReconfigRequest} (superuser only; one server added, promoted or removed), and answered with
     * {@code /zookeeper/config}'s data and Stat after it ({@link DataBody}), as ZooKeeper answers; BAD_VERSION when
     * {@code curConfigId} is not the version in force. Never sent by zkr's client.
     */
    record ZooKeeperReconfigRequest(int xid, String joiningServers, String leavingServers, String newMembers,
                                    long curConfigId) implements Request {
    }

    /** Heartbeat; keeps the session alive. */
    record PingRequest(int xid) implements Request {
    }

    /** Ends the session: its ephemerals are deleted; the server replies, then closes the connection. */
    record CloseSessionRequest(int xid) implements Request {
    }

    // ---- server to client ---------------------------------------------------------------------------------------

    /**
     * The answer to the request with this xid. {@code code} is a {@code ZkException.Code} int value (0 = OK);
     * {@code zxid} is the server's last applied zxid when answering; {@code body} is null for void results and
     * errors, except for a failed multi which carries its per-op {@link MultiBody}; {@code message} is an optional
     * explanation of an error.
     */
    record Reply(int xid, long zxid, int code, Body body, String message) implements Message {
    }

    /** A watch fired for this session. */
    record WatchEvent(WatchedEvent.Type type, String path, long zxid) implements Message {
    }

    /**
     * A created or data-changed event of a watch set with data ({@link AddWatchWithDataRequest}): the node's data
     * and Stat right after the txn {@code zxid}.
     */
    record WatchEventWithData(WatchedEvent.Type type, String path, long zxid, byte[] data, Stat stat)
            implements Message {
    }

    // ---- reply bodies -------------------------------------------------------------------------------------------

    /** The typed result carried by a {@link Reply}. */
    sealed interface Body {
    }

    /** create: actual path and the new node's Stat. */
    record CreateBody(String path, Stat stat) implements Body {
    }

    /** exists (stat null = no node) and setData (new Stat). */
    record StatBody(Stat stat) implements Body {
    }

    /** getData. */
    record DataBody(byte[] data, Stat stat) implements Body {
    }

    /** getChildren: names and the node's Stat. */
    record ChildrenBody(String[] names, Stat stat) implements Body {
    }

    /** getAcl: the ACL and the node's Stat. */
    record AclBody(Acl[] acls, Stat stat) implements Body {
    }

    /** multi: per-op results (ErrorResults when it failed). */
    record MultiBody(OpResult[] results) implements Body {
    }

    /** getEphemerals: paths, sorted. */
    record PathsBody(String[] paths) implements Body {
    }

    /** getAllChildrenNumber: the count. */
    record CountBody(int count) implements Body {
    }

    /** whoAmI: the connection's identities in the order it gained them. */
    record ClientInfoBody(ClientInfo[] infos) implements Body {
    }

    /** getMembers and reconfig: the ensemble's members, by id. */
    record MembersBody(EnsembleMember[] members) implements Body {
    }
}
