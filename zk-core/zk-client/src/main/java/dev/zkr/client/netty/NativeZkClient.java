package dev.zkr.client.netty;

import dev.zkr.client.AddWatchMode;
import dev.zkr.client.Children;
import dev.zkr.client.ClientSupport;
import dev.zkr.client.ConnectionState;
import dev.zkr.client.ConnectionStateListener;
import dev.zkr.client.CreateMode;
import dev.zkr.client.Created;
import dev.zkr.client.NodeData;
import dev.zkr.client.Op;
import dev.zkr.client.OpResult;
import dev.zkr.client.RequestChecks;
import dev.zkr.client.Stat;
import dev.zkr.client.Watcher;
import dev.zkr.client.WatcherType;
import dev.zkr.client.ZkClient;
import dev.zkr.client.ZkClientConfig;
import dev.zkr.client.ZkException;
import dev.zkr.client.ZkPaths;
import dev.zkr.wire.MessageCodec;
import io.netty.channel.EventLoop;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * The native zkr client: one Netty connection at a time to a server of the connect string, one event thread that
 * runs watchers, state listeners and future completions in arrival order. Obtain one with
 * {@link ZkClient#builder()} or {@link ZkClient#connect}; the {@link ZkClient} Javadoc is its contract.
 */
public final class NativeZkClient implements ZkClient {

    private static final Logger LOG = LoggerFactory.getLogger(NativeZkClient.class);
    private static final AtomicInteger CLIENT_IDS = new AtomicInteger();
    /** Room left in a frame for the multi request's own header. */
    private static final int MULTI_FRAME_MARGIN = 1024;
    private static final long MAX_CLOSE_WAIT_MS = 2000;

    private final ZkClientConfig config;
    private final long requestTimeoutNanos;
    private final EventThread events;
    private final WatchRegistry watches = new WatchRegistry();
    private final CopyOnWriteArrayList<ListenerEntry> listeners = new CopyOnWriteArrayList<>();
    private final ConnectionManager connection;
    private final AtomicBoolean closed = new AtomicBoolean();

    private record ListenerEntry(ConnectionStateListener listener, Executor executor) {
    }

    private NativeZkClient(ZkClientConfig config, EventLoop loop) {
        this.config = config;
        this.requestTimeoutNanos = config.requestTimeout().toNanos();
        this.events = new EventThread("zkr-client-event-" + CLIENT_IDS.incrementAndGet());
        this.connection = new ConnectionManager(config, loop, events, watches, this::stateChanged);
    }

    /** Opens a native client with the builder's settings and waits for its first session. */
    public static ZkClient open(ZkClientConfig config) {
        Objects.requireNonNull(config, "config");
        EventLoop loop = EventLoops.acquire();
        NativeZkClient client;
        try {
            client = new NativeZkClient(config, loop);
        } catch (RuntimeException e) {
            EventLoops.release();
            throw e;
        }
        client.connection.start();
        try {
            client.connection.awaitFirstSession(config.connectTimeout().toMillis());
            client.awaitEventThread(); // the first CONNECTED is reported before any listener can be added
        } catch (RuntimeException e) {
            client.close();
            throw e;
        }
        return client;
    }

    /** The largest number of callbacks that waited for the event thread at once (tests). */
    int peakEventBacklog() {
        return events.peakBacklog();
    }

    private void awaitEventThread() {
        CompletableFuture<Void> barrier = new CompletableFuture<>();
        events.execute(() -> barrier.complete(null));
        ClientSupport.await(barrier);
    }

    // ---- session and connection ---------------------------------------------------------------------------------

    @Override
    public long sessionId() {
        return connection.sessionId();
    }

    @Override
    public Duration sessionTimeout() {
        return Duration.ofMillis(connection.negotiatedTimeoutMs());
    }

    @Override
    public ConnectionState state() {
        return closed.get() ? ConnectionState.LOST : connection.state();
    }

    @Override
    public boolean isClosed() {
        return closed.get();
    }

    @Override
    public int maxDataSize() {
        return connection.maxDataSize();
    }

    /**
     * True: every request in flight when a connection drops is kept and sent again with its xid once the session is
     * re-attached, and a zkr server answers a write it applied with its saved reply (docs/exactly-once.md). Not a
     * property of one connection: every zkr server since exactly-once writes answers the handshake with
     * {@code Message.ACKS_VERSION} (ConnectionManager's {@code acks}), and a server without exactly-once writes
     * (earlier than issue 30) is not supported with this client, which re-sends whatever the server.
     */
    @Override
    public boolean exactlyOnceWrites() {
        return true;
    }

    @Override
    public void addConnectionStateListener(ConnectionStateListener listener) {
        listeners.add(new ListenerEntry(Objects.requireNonNull(listener, "listener"), null));
    }

    @Override
    public void addConnectionStateListener(ConnectionStateListener listener, Executor executor) {
        listeners.add(new ListenerEntry(Objects.requireNonNull(listener, "listener"),
                Objects.requireNonNull(executor, "executor")));
    }

    @Override
    public void removeConnectionStateListener(ConnectionStateListener listener) {
        listeners.removeIf(e -> e.listener() == listener);
    }

    @Override
    public Set<String> watchedPaths() {
        return watches.paths();
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        long waitMs = Math.min(MAX_CLOSE_WAIT_MS, config.requestTimeout().toMillis());
        try {
            connection.close(waitMs);
        } finally {
            events.shutdown(5, TimeUnit.SECONDS);
            EventLoops.release();
        }
    }

    /** Called on the I/O thread when the state changes: listeners run on the event thread (or their executor). */
    private void stateChanged(ConnectionState state) {
        events.execute(() -> {
            for (ListenerEntry e : listeners) {
                if (e.executor() == null) {
                    notify(e.listener(), state);
                } else {
                    try {
                        e.executor().execute(() -> notify(e.listener(), state));
                    } catch (RuntimeException ex) {
                        LOG.warn("state listener executor refused {}: {}", state, ex.toString());
                    }
                }
            }
        });
    }

    private void notify(ConnectionStateListener listener, ConnectionState state) {
        try {
            listener.stateChanged(this, state);
        } catch (RuntimeException ex) {
            LOG.warn("state listener {} failed on {}: {}", listener, state, ex.toString(), ex);
        }
    }

    // ---- async primitives ---------------------------------------------------------------------------------------

    @Override
    public CompletableFuture<Created> createAsync(String path, byte[] data, CreateMode mode) {
        return submit(() -> createRequest(path, data, mode));
    }

    private OutstandingRequest createRequest(String path, byte[] data, CreateMode mode) {
        return createRequest(path, data, mode, -1);
    }

    private OutstandingRequest createRequest(String path, byte[] data, CreateMode mode, long ttlMs) {
        checkOpen(path);
        RequestChecks.create(path, mode, ttlMs);
        OutstandingRequest p = pending(OutstandingRequest.Kind.CREATE, path);
        p.data = checkData(path, data);
        p.createMode = mode;
        p.ttlMs = ttlMs;
        return p;
    }

    @Override
    public CompletableFuture<Created> createAsync(String path, byte[] data, CreateMode mode,
                                                 List<dev.zkr.client.Acl> acls) {
        return submit(() -> {
            OutstandingRequest p = createRequest(path, data, mode);
            p.acls = RequestChecks.acls(path, acls);
            return p;
        });
    }

    @Override
    public CompletableFuture<Created> createAsync(String path, byte[] data, CreateMode mode,
                                                 List<dev.zkr.client.Acl> acls, java.time.Duration ttl) {
        return submit(() -> {
            if (ttl == null) {
                throw new ZkException.BadArguments(path, "TTL missing");
            }
            OutstandingRequest p = createRequest(path, data, mode, ttl.toMillis());
            p.acls = acls == null ? null : RequestChecks.acls(path, acls);
            return p;
        });
    }

    @Override
    public CompletableFuture<dev.zkr.client.NodeAcl> getAclAsync(String path) {
        return submit(() -> pending(OutstandingRequest.Kind.GET_ACL, checkPath(path)));
    }

    @Override
    public CompletableFuture<Stat> setAclAsync(String path, List<dev.zkr.client.Acl> acls, int aversion) {
        return submit(() -> {
            OutstandingRequest p = pending(OutstandingRequest.Kind.SET_ACL, checkPath(path));
            p.acls = RequestChecks.acls(path, acls);
            p.version = aversion;
            return p;
        });
    }

    @Override
    public CompletableFuture<Void> addAuthInfoAsync(String scheme, byte[] auth) {
        return submit(() -> {
            checkOpen(null);
            if (scheme == null || scheme.isEmpty()) {
                throw new ZkException.BadArguments(null, "auth scheme missing");
            }
            OutstandingRequest p = pending(OutstandingRequest.Kind.AUTH, null);
            p.authInfo = new dev.zkr.client.ZkClientConfig.AuthInfo(scheme, auth);
            connection.rememberAuth(p.authInfo);
            return p;
        });
    }

    @Override
    public CompletableFuture<Void> deleteAsync(String path, int version) {
        return submit(() -> deleteRequest(path, version));
    }

    private OutstandingRequest deleteRequest(String path, int version) {
        OutstandingRequest p = pending(OutstandingRequest.Kind.DELETE, checkPath(path));
        p.version = version;
        return p;
    }

    @Override
    public CompletableFuture<Stat> existsAsync(String path, Watcher watcher) {
        return submit(() -> readRequest(OutstandingRequest.Kind.EXISTS, path, watcher));
    }

    @Override
    public CompletableFuture<NodeData> getDataAsync(String path, Watcher watcher) {
        return submit(() -> readRequest(OutstandingRequest.Kind.GET_DATA, path, watcher));
    }

    @Override
    public CompletableFuture<Children> getChildrenAsync(String path, Watcher watcher) {
        return submit(() -> readRequest(OutstandingRequest.Kind.GET_CHILDREN, path, watcher));
    }

    private OutstandingRequest readRequest(OutstandingRequest.Kind kind, String path, Watcher watcher) {
        OutstandingRequest p = pending(kind, checkPath(path));
        p.watcher = watcher;
        return p;
    }

    @Override
    public CompletableFuture<Stat> setDataAsync(String path, byte[] data, int version) {
        return submit(() -> setDataRequest(path, data, version));
    }

    private OutstandingRequest setDataRequest(String path, byte[] data, int version) {
        OutstandingRequest p = pending(OutstandingRequest.Kind.SET_DATA, checkPath(path));
        p.data = checkData(path, data);
        p.version = version;
        return p;
    }

    // ---- blocking forms of the common calls ---------------------------------------------------------------------
    // Same requests as the async forms; their future never reaches user code, so when the event thread has nothing
    // queued (no watcher or completion that must come first) the I/O thread completes it directly: one thread
    // hand-off less per blocking call, same order.

    @Override
    public String create(String path, byte[] data, CreateMode mode) {
        return this.<Created>await(createRequest(path, data, mode)).path();
    }

    @Override
    public void delete(String path, int version) {
        await(deleteRequest(path, version));
    }

    @Override
    public Stat exists(String path) {
        return exists(path, null);
    }

    @Override
    public Stat exists(String path, Watcher watcher) {
        return await(readRequest(OutstandingRequest.Kind.EXISTS, path, watcher));
    }

    @Override
    public NodeData getData(String path) {
        return getData(path, null);
    }

    @Override
    public NodeData getData(String path, Watcher watcher) {
        return await(readRequest(OutstandingRequest.Kind.GET_DATA, path, watcher));
    }

    @Override
    public Stat setData(String path, byte[] data, int version) {
        return await(setDataRequest(path, data, version));
    }

    @SuppressWarnings("unchecked")
    private <T> T await(OutstandingRequest p) {
        p.blocking = true;
        connection.submit(p);
        return (T) ClientSupport.await(p.future);
    }

    @Override
    public CompletableFuture<List<OpResult>> multiAsync(List<Op> ops) {
        OutstandingRequest p;
        try {
            checkOpen(null);
            RequestChecks.required(ops, null, "ops");
            if (ops.isEmpty()) {
                return CompletableFuture.completedFuture(List.of());
            }
            Op[] checked = new Op[ops.size()];
            long size = 0;
            for (int i = 0; i < checked.length; i++) {
                checked[i] = RequestChecks.op(ops.get(i), connection.maxDataSize());
                size += estimatedSize(checked[i]);
            }
            int limit = MessageCodec.maxFrameSize(connection.maxDataSize()) - MULTI_FRAME_MARGIN;
            if (size > limit) {
                throw new ZkException.DataTooLarge(null, "multi of " + checked.length + " operations carries about "
                        + size + " bytes, more than one request may carry (" + limit + ")");
            }
            p = pending(OutstandingRequest.Kind.MULTI, null);
            p.ops = checked;
        } catch (ZkException e) {
            return CompletableFuture.failedFuture(e);
        }
        return submit(p);
    }

    @Override
    public CompletableFuture<List<OpResult>> multiReadAsync(List<Op> ops) {
        OutstandingRequest p;
        try {
            checkOpen(null);
            RequestChecks.required(ops, null, "ops");
            if (ops.isEmpty()) {
                return CompletableFuture.completedFuture(List.of());
            }
            Op[] checked = new Op[ops.size()];
            for (int i = 0; i < checked.length; i++) {
                checked[i] = RequestChecks.readOp(ops.get(i));
            }
            p = pending(OutstandingRequest.Kind.MULTI_READ, null);
            p.ops = checked;
        } catch (ZkException e) {
            return CompletableFuture.failedFuture(e);
        }
        return submit(p);
    }

    @Override
    public CompletableFuture<List<String>> getEphemeralsAsync(String prefix) {
        return submit(() -> pending(OutstandingRequest.Kind.GET_EPHEMERALS, checkPath(prefix)));
    }

    @Override
    public CompletableFuture<Integer> getAllChildrenNumberAsync(String path) {
        return submit(() -> pending(OutstandingRequest.Kind.GET_ALL_CHILDREN_NUMBER, checkPath(path)));
    }

    @Override
    public CompletableFuture<List<dev.zkr.client.ClientInfo>> whoAmIAsync() {
        return submit(() -> {
            checkOpen(null);
            return pending(OutstandingRequest.Kind.WHO_AM_I, null);
        });
    }

    @Override
    public CompletableFuture<List<dev.zkr.client.EnsembleMember>> membersAsync() {
        return submit(() -> {
            checkOpen(null);
            return pending(OutstandingRequest.Kind.MEMBERS, null);
        });
    }

    @Override
    public CompletableFuture<List<dev.zkr.client.EnsembleMember>> reconfigAsync(dev.zkr.client.MembershipChange change) {
        java.util.Objects.requireNonNull(change, "change");
        return submit(() -> {
            checkOpen(null);
            OutstandingRequest p = pending(OutstandingRequest.Kind.RECONFIG, null);
            p.change = change;
            return p;
        });
    }

    @Override
    public CompletableFuture<Void> syncAsync(String path) {
        return submit(() -> pending(OutstandingRequest.Kind.SYNC, checkPath(path)));
    }

    @Override
    public CompletableFuture<Void> addWatchAsync(String path, AddWatchMode mode, Watcher watcher) {
        return addWatchAsync(path, mode, false, watcher);
    }

    @Override
    public CompletableFuture<Void> addWatchAsync(String path, AddWatchMode mode, boolean withData, Watcher watcher) {
        return submit(() -> {
            OutstandingRequest p = pending(OutstandingRequest.Kind.ADD_WATCH, checkPath(path));
            if (mode == null || watcher == null) {
                throw new ZkException.BadArguments(path, "addWatch needs a mode and a watcher");
            }
            p.addWatchMode = mode;
            p.addWatchWithData = withData;
            p.watcher = watcher;
            return p;
        });
    }

    /**
     * Removes the watcher's watches (a null watcher: every watcher's) of the type locally at once, delivering the
     * removal events; tells the server only about types no local watcher holds on the path any more, and that no
     * watching read sent before the removal will register (re-checked as the removal is written: the server
     * serves that read first, so dropping its watch would leave a local watcher that never fires).
     */
    @Override
    public CompletableFuture<Void> removeWatchesAsync(String path, Watcher watcher, WatcherType type, boolean local) {
        WatchRegistry.Removal removal;
        try {
            checkPath(path);
            if (type == null) {
                throw new ZkException.BadArguments(path, "watcher type is null");
            }
            removal = watches.remove(path, watcher, type);
            if (removal == null) {
                throw new ZkException.NoWatcher(path, "no " + type + " watch" + (watcher == null ? "" : " of " + watcher));
            }
        } catch (ZkException e) {
            return CompletableFuture.failedFuture(e);
        }
        CompletableFuture<Void> result = new CompletableFuture<>();
        List<WatchRegistry.Removed> removed = removal.removed();
        events.execute(() -> {
            for (WatchRegistry.Removed r : removed) {
                ConnectionManager.deliver(List.of(r.watcher()), r.event());
            }
        });
        if (removal.serverTypes().isEmpty() || (local && !state().isConnected())) {
            events.execute(() -> result.complete(null));
            return result;
        }
        CompletableFuture<?>[] sent = removal.serverTypes().stream().map(t -> {
            OutstandingRequest p = pending(OutstandingRequest.Kind.REMOVE_WATCHES, path);
            p.watcherType = t;
            return submit(p);
        }).toArray(CompletableFuture[]::new);
        CompletableFuture.allOf(sent).whenComplete((v, e) -> {
            if (e == null || local) {
                result.complete(null);
            } else {
                result.completeExceptionally(ClientSupport.unwrap(e));
            }
        });
        return result;
    }

    // ---- helpers ------------------------------------------------------------------------------------------------

    private void checkOpen(String path) {
        if (closed.get()) {
            throw new ZkException.Closed(path, "the client is closed");
        }
    }

    /** Upper bound of an operation's encoded size: its data, its path as UTF-8 (at most 3 bytes a char), headers. */
    private static long estimatedSize(Op op) {
        long data = op instanceof Op.Create c ? c.data().length : op instanceof Op.SetData d ? d.data().length : 0;
        return data + 3L * op.path().length() + 32;
    }

    private String checkPath(String path) {
        checkOpen(path);
        return ZkPaths.validate(path);
    }

    private byte[] checkData(String path, byte[] data) {
        return RequestChecks.data(path, data, connection.maxDataSize());
    }

    private OutstandingRequest pending(OutstandingRequest.Kind kind, String path) {
        return new OutstandingRequest(kind, path, System.nanoTime() + requestTimeoutNanos);
    }

    /** Builds a request and sends it; a request that fails its checks fails the returned future instead. */
    private <T> CompletableFuture<T> submit(Supplier<OutstandingRequest> request) {
        OutstandingRequest p;
        try {
            p = request.get();
        } catch (ZkException e) {
            return CompletableFuture.failedFuture(e);
        }
        return submit(p);
    }

    @SuppressWarnings("unchecked")
    private <T> CompletableFuture<T> submit(OutstandingRequest p) {
        connection.submit(p);
        return (CompletableFuture<T>) (CompletableFuture<?>) p.future;
    }

    @Override
    public String toString() {
        return "NativeZkClient[session 0x" + Long.toHexString(sessionId()) + ", " + state() + ", " + config.connectString() + "]";
    }
}
