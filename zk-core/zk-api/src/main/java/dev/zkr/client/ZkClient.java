package dev.zkr.client;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/**
 * A session with a znode service: the only API the recipes use. The native implementation talks to zkr servers
 * ({@link #connect}, {@link #builder}); {@code zk-apache} implements it over Apache ZooKeeper.
 *
 * <p>Every operation has an async form returning a {@link CompletableFuture} and a blocking form. Failures are
 * {@link ZkException}s: the blocking forms throw them, the futures complete exceptionally with them (never wrapped).
 * Paths are validated with {@link ZkPaths#validate} and data sizes checked before any I/O.
 *
 * <p>Ordering: requests of one client are answered in the order they were sent. Watch events and future completions
 * run on the client's single event thread, in order: a watcher sees its event before any response that reflects the
 * change. Never block on the event thread (in a watcher or in a callback attached to a future of this client).
 *
 * <p>Sessions: when the connection drops the client reports {@link ConnectionState#SUSPENDED}, fails requests in
 * flight with {@link ZkException.ConnectionLoss} (a client with {@link #exactlyOnceWrites()} keeps them and sends
 * them again instead), and tries the servers of its connect string to re-attach the same
 * session ({@link ConnectionState#RECONNECTED}), re-registering its watches. If the server declares the session
 * expired the client reports {@link ConnectionState#LOST}, drops every watch, fails waiting requests with
 * {@link ZkException.SessionExpired}, then opens a new session and reports {@link ConnectionState#CONNECTED}
 * (with a new {@link #sessionId()}). {@link #close()} ends the session; afterwards every call fails with
 * {@link ZkException.Closed}.
 */
public interface ZkClient extends AutoCloseable {

    /** Connects the native client to zkr servers ({@code host:port,host:port,...}) and waits for the session. */
    static ZkClient connect(String connectString, Duration sessionTimeout) {
        return builder().connectString(connectString).sessionTimeout(sessionTimeout).build();
    }

    /** A builder for the native client. */
    static ZkClientBuilder builder() {
        return new ZkClientBuilder();
    }

    // ---- session and connection -------------------------------------------------------------------------------

    /** The id of the current session (changes after {@link ConnectionState#LOST}). */
    long sessionId();

    /** The session timeout negotiated with the server. */
    Duration sessionTimeout();

    /** The current connection state. */
    ConnectionState state();

    /** True once {@link #close()} was called: the state then reads LOST and every request fails with Closed. */
    boolean isClosed();

    /** The largest data size a node may hold; larger data fails with {@link ZkException.DataTooLarge}. */
    int maxDataSize();

    /**
     * True if this client gives <b>exactly-once writes</b>: a write in flight when the connection drops is sent again
     * on the next connection of the same session and completes with its real outcome (the server answers one it had
     * applied with the reply it saved), so a write never fails with {@link ZkException.ConnectionLoss} while the
     * session lives. What stays: {@link ZkException.OperationTimeout} when the outage outlasts the request timeout
     * (the write may still be applied, in its turn), and {@link ZkException.SessionExpired} saying "outcome unknown"
     * for a write in flight when the session was lost (docs/exactly-once.md).
     *
     * <p>False (the default, and Apache ZooKeeper's client): a write in flight when the connection drops fails with
     * ConnectionLoss and may or may not have been applied; a later SessionExpired means it was never sent. Recipes
     * use this to skip the look-ups and ledgers that only resolve such losses.
     */
    default boolean exactlyOnceWrites() {
        return false;
    }

    /** Adds a listener of connection state changes, called on the event thread. */
    void addConnectionStateListener(ConnectionStateListener listener);

    /** Adds a listener of connection state changes, called on the given executor. */
    void addConnectionStateListener(ConnectionStateListener listener, Executor executor);

    void removeConnectionStateListener(ConnectionStateListener listener);

    /**
     * The paths on which this client currently holds watches registered by its callers (one-shot not yet fired and
     * persistent), for leak checks.
     */
    Set<String> watchedPaths();

    /** Ends the session (its ephemerals go) and releases resources. Idempotent. */
    @Override
    void close();

    // ---- async primitives -------------------------------------------------------------------------------------

    /** Creates a node; for sequential modes the returned path carries the sequence suffix. */
    CompletableFuture<Created> createAsync(String path, byte[] data, CreateMode mode);

    /** Deletes a node if its version matches ({@code -1} = any version). */
    CompletableFuture<Void> deleteAsync(String path, int version);

    /** The node's Stat, or null if it does not exist; the watcher (nullable) fires on create, delete or data change. */
    CompletableFuture<Stat> existsAsync(String path, Watcher watcher);

    /** Data and Stat; the watcher (nullable) fires once on delete or data change. */
    CompletableFuture<NodeData> getDataAsync(String path, Watcher watcher);

    /** Sets data if the version matches ({@code -1} = any); returns the new Stat. */
    CompletableFuture<Stat> setDataAsync(String path, byte[] data, int version);

    /** Child names and the node's Stat; the watcher (nullable) fires once on delete or child change. */
    CompletableFuture<Children> getChildrenAsync(String path, Watcher watcher);

    /**
     * Runs the operations atomically: all or nothing. On success, one result per operation. On failure the future
     * completes with the exception of the first failing operation, whose {@link ZkException#multiResults()} holds
     * the per-operation results.
     */
    CompletableFuture<List<OpResult>> multiAsync(List<Op> ops);

    /** After this completes, reads of this client see every write committed before the sync. */
    CompletableFuture<Void> syncAsync(String path);

    /** Adds a persistent (or persistent-recursive) watch that stays until removed. */
    CompletableFuture<Void> addWatchAsync(String path, AddWatchMode mode, Watcher watcher);

    /**
     * Adds a persistent (or persistent-recursive) watch whose NODE_CREATED and NODE_DATA_CHANGED events carry, with
     * {@code withData}, the node's data and Stat right after the change ({@link WatchedEvent#data()}), so a cache
     * needs no {@code getData} per event (as etcd's watch events carry the value). zkr's own client and server send
     * it; a backend that cannot (ZooKeeper, this default) sets the watch without it and its events carry none, so a
     * caller must handle a null {@code data} by reading. The session must be allowed to READ the node, or it gets
     * no event at all (as without data). Once any watch of this session on the path asked for data, its events
     * carry it until the watch is removed.
     */
    default CompletableFuture<Void> addWatchAsync(String path, AddWatchMode mode, boolean withData,
                                                 Watcher watcher) {
        return addWatchAsync(path, mode, watcher);
    }

    /**
     * Removes the given watcher's watches of the given type on the path, on the server and locally; the watcher
     * receives the matching *_WATCH_REMOVED event. Fails with {@link ZkException.NoWatcher} if it has none.
     * With {@code local}, removes them locally even if the server cannot be reached.
     */
    CompletableFuture<Void> removeWatchesAsync(String path, Watcher watcher, WatcherType type, boolean local);

    // ---- more reads (ZooKeeper 3.6+ requests) --------------------------------------------------------------

    /**
     * Runs read operations ({@link Op#getData}, {@link Op#getChildren}) in one request, served together from one
     * state of the tree: one result per operation, each failing alone ({@link OpResult.ErrorResult} with its code,
     * e.g. NO_NODE or NO_AUTH) without failing the others. Sets no watches. A write operation fails the call with
     * {@link ZkException.BadArguments}.
     */
    default CompletableFuture<List<OpResult>> multiReadAsync(List<Op> ops) {
        return ClientSupport.failed(new ZkException.Unimplemented(null, "multiRead is not supported by this client"));
    }

    /**
     * The paths of the ephemeral nodes this session owns whose path starts with {@code prefix} (a plain string
     * prefix, as ZooKeeper's: {@code /app} also matches {@code /app2/x}; {@code /} means all), sorted.
     */
    default CompletableFuture<List<String>> getEphemeralsAsync(String prefix) {
        return ClientSupport.failed(new ZkException.Unimplemented(prefix, "getEphemerals is not supported"));
    }

    /** The number of all descendants of the node (children, their children, ...); needs READ on the node. */
    default CompletableFuture<Integer> getAllChildrenNumberAsync(String path) {
        return ClientSupport.failed(new ZkException.Unimplemented(path, "getAllChildrenNumber is not supported"));
    }

    /**
     * The identities the server holds for this client's connection (its {@code ip}, {@code x509} and what
     * {@link #addAuthInfo} added), in the order it gained them.
     */
    default CompletableFuture<List<ClientInfo>> whoAmIAsync() {
        return ClientSupport.failed(new ZkException.Unimplemented(null, "whoAmI is not supported"));
    }

    default List<OpResult> multiRead(List<Op> ops) {
        return ClientSupport.await(multiReadAsync(ops));
    }

    default List<String> getEphemerals(String prefix) {
        return ClientSupport.await(getEphemeralsAsync(prefix));
    }

    default int getAllChildrenNumber(String path) {
        return ClientSupport.await(getAllChildrenNumberAsync(path));
    }

    default List<ClientInfo> whoAmI() {
        return ClientSupport.await(whoAmIAsync());
    }

    /**
     * The ensemble's members (zkr only; docs/membership.md): as the server this client is connected to applied them
     * last (committed), or its configured member lines while the ensemble never changed shape; empty for a
     * standalone server.
     */
    default CompletableFuture<List<EnsembleMember>> membersAsync() {
        return ClientSupport.failed(new ZkException.Unimplemented(null, "members is not supported"));
    }

    default List<EnsembleMember> members() {
        return ClientSupport.await(membersAsync());
    }

    /**
     * Asks for a membership change (zkr only; the session must be authenticated as the superuser): completes once the
     * change committed with the members after it. Fails with {@link ZkException.ReconfigInProgress} while another
     * change is pending (ask again), {@link ZkException.NewConfigNoQuorum} when the observer to promote has not caught
     * up, {@link ZkException.BadArguments} when the change does not apply (a member added twice, a server id used
     * before, the last voter removed), {@link ZkException.NoAuth} for any other session; with
     * {@link ZkException.ConnectionLoss} the change may or may not have been made (read {@link #members()}).
     */
    default CompletableFuture<List<EnsembleMember>> reconfigAsync(MembershipChange change) {
        return ClientSupport.failed(new ZkException.Unimplemented(null, "reconfig is not supported"));
    }

    default List<EnsembleMember> reconfig(MembershipChange change) {
        return ClientSupport.await(reconfigAsync(change));
    }

    // ---- ACLs and authentication ------------------------------------------------------------------------------

    /**
     * Creates a node with this ACL (see {@link Acls}); needs CREATE on the parent. Fails with
     * {@link ZkException.InvalidAcl} for an empty or malformed ACL, or {@code auth} ids when the session has none.
     */
    default CompletableFuture<Created> createAsync(String path, byte[] data, CreateMode mode, List<Acl> acls) {
        return ClientSupport.failed(new ZkException.Unimplemented(path, "ACLs are not supported by this client"));
    }

    /**
     * Creates a TTL node ({@link CreateMode#PERSISTENT_WITH_TTL} or {@link CreateMode#PERSISTENT_SEQUENTIAL_WITH_TTL})
     * with this ACL ({@code null} = {@link Acls#OPEN_UNSAFE}): the server deletes it once it has no children and has
     * not been modified for longer than {@code ttl}. Fails with {@link ZkException.BadArguments} for a TTL outside
     * 1 ms..{@link CreateMode#MAX_TTL_MS} ms, or a mode that is not a TTL mode.
     */
    default CompletableFuture<Created> createAsync(String path, byte[] data, CreateMode mode, List<Acl> acls,
                                                   java.time.Duration ttl) {
        return ClientSupport.failed(new ZkException.Unimplemented(path, "TTL nodes are not supported by this client"));
    }

    /** The node's ACL and Stat; needs READ or ADMIN (without ADMIN, digest secrets are masked as ZooKeeper does). */
    default CompletableFuture<NodeAcl> getAclAsync(String path) {
        return ClientSupport.failed(new ZkException.Unimplemented(path, "ACLs are not supported by this client"));
    }

    /** Replaces the node's ACL if its aversion matches ({@code -1} = any); needs ADMIN. Returns the new Stat. */
    default CompletableFuture<Stat> setAclAsync(String path, List<Acl> acls, int aversion) {
        return ClientSupport.failed(new ZkException.Unimplemented(path, "ACLs are not supported by this client"));
    }

    /**
     * Authenticates this session's connection ({@code "digest"}, {@code "user:password".getBytes()}); the client
     * re-sends it after every reconnect and session renewal. Fails with {@link ZkException.AuthFailed} if the server
     * refuses it (then it is not re-sent).
     */
    default CompletableFuture<Void> addAuthInfoAsync(String scheme, byte[] auth) {
        return ClientSupport.failed(new ZkException.Unimplemented(null, "authentication is not supported"));
    }

    default String create(String path, byte[] data, CreateMode mode, List<Acl> acls) {
        return ClientSupport.await(createAsync(path, data, mode, acls)).path();
    }

    /** Blocking {@link #createAsync(String, byte[], CreateMode, List, java.time.Duration)}: the created path. */
    default String create(String path, byte[] data, CreateMode mode, List<Acl> acls, java.time.Duration ttl) {
        return ClientSupport.await(createAsync(path, data, mode, acls, ttl)).path();
    }

    default NodeAcl getAcl(String path) {
        return ClientSupport.await(getAclAsync(path));
    }

    default Stat setAcl(String path, List<Acl> acls, int aversion) {
        return ClientSupport.await(setAclAsync(path, acls, aversion));
    }

    default void addAuthInfo(String scheme, byte[] auth) {
        ClientSupport.await(addAuthInfoAsync(scheme, auth));
    }

    // ---- conveniences built on the primitives -----------------------------------------------------------------

    /** Creates a node, creating missing parents as asked. */
    default CompletableFuture<Created> createAsync(String path, byte[] data, CreateMode mode, Parents parents) {
        return ClientSupport.createWithParents(this, path, data, mode, parents);
    }

    default String create(String path, byte[] data, CreateMode mode) {
        return ClientSupport.await(createAsync(path, data, mode)).path();
    }

    default String create(String path, byte[] data, CreateMode mode, Parents parents) {
        return ClientSupport.await(createAsync(path, data, mode, parents)).path();
    }

    /** Creates a node and returns its actual path and Stat (czxid is a natural fencing token). */
    default Created createWithStat(String path, byte[] data, CreateMode mode, Parents parents) {
        return ClientSupport.await(createAsync(path, data, mode, parents));
    }

    default void delete(String path, int version) {
        ClientSupport.await(deleteAsync(path, version));
    }

    default Stat exists(String path) {
        return ClientSupport.await(existsAsync(path, null));
    }

    default Stat exists(String path, Watcher watcher) {
        return ClientSupport.await(existsAsync(path, watcher));
    }

    default NodeData getData(String path) {
        return ClientSupport.await(getDataAsync(path, null));
    }

    default NodeData getData(String path, Watcher watcher) {
        return ClientSupport.await(getDataAsync(path, watcher));
    }

    default Stat setData(String path, byte[] data, int version) {
        return ClientSupport.await(setDataAsync(path, data, version));
    }

    /** Child names only. */
    default List<String> getChildren(String path) {
        return ClientSupport.await(getChildrenAsync(path, null)).names();
    }

    default List<String> getChildren(String path, Watcher watcher) {
        return ClientSupport.await(getChildrenAsync(path, watcher)).names();
    }

    /** Child names and the node's Stat. */
    default Children getChildrenWithStat(String path, Watcher watcher) {
        return ClientSupport.await(getChildrenAsync(path, watcher));
    }

    default List<OpResult> multi(List<Op> ops) {
        return ClientSupport.await(multiAsync(ops));
    }

    default void sync(String path) {
        ClientSupport.await(syncAsync(path));
    }

    default void addWatch(String path, AddWatchMode mode, Watcher watcher) {
        ClientSupport.await(addWatchAsync(path, mode, watcher));
    }

    default void removeWatches(String path, Watcher watcher, WatcherType type, boolean local) {
        ClientSupport.await(removeWatchesAsync(path, watcher, type, local));
    }
}
