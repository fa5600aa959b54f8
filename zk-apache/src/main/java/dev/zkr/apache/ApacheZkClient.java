package dev.zkr.apache;

import dev.zkr.client.AddWatchMode;
import dev.zkr.client.Children;
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
import dev.zkr.client.ZkException;
import dev.zkr.client.ZkPaths;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher.Event.KeeperState;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.client.ZKClientConfig;
import org.apache.zookeeper.common.ZKConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * A {@link ZkClient} over the official Apache ZooKeeper client, so zkr recipes run on an existing ZooKeeper ensemble.
 *
 * <p>Every primitive uses ZooKeeper's async API; futures complete on ZooKeeper's event thread, in the order of its
 * callbacks and watch events, which keeps ZooKeeper's ordering guarantee. Connection states follow the
 * {@link ZkClient} contract: the first session is {@link ConnectionState#CONNECTED}, a dropped connection
 * {@link ConnectionState#SUSPENDED}, the same session back {@link ConnectionState#RECONNECTED}, an expired session
 * {@link ConnectionState#LOST} followed (unless disabled) by a new ZooKeeper handle and session reported
 * {@link ConnectionState#CONNECTED}. Paths and data sizes are checked before any I/O.
 *
 * <pre>{@code
 * ZkClient client = ApacheZkClient.connect("zk1:2181,zk2:2181", Duration.ofSeconds(10));
 * }</pre>
 */
public final class ApacheZkClient implements ZkClient {

    private static final Logger LOG = LoggerFactory.getLogger(ApacheZkClient.class);

    private final Builder config;
    private final ConnectionListeners listeners = new ConnectionListeners();
    /** (scheme, bytes) added with addAuthInfo, added again to every renewed session. */
    private final java.util.concurrent.CopyOnWriteArrayList<Object[]> auths =
            new java.util.concurrent.CopyOnWriteArrayList<>();
    private final CompletableFuture<Void> firstSession = new CompletableFuture<>();

    /** Guarded by this; read without the lock where a stale value is harmless. */
    private volatile Session current;
    private volatile ConnectionState state;
    private volatile boolean closed;

    private ApacheZkClient(Builder config) {
        auths.addAll(config.authInfo);
        this.config = config;
    }

    /** Connects to a ZooKeeper ensemble ({@code host:port,host:port,...}) and waits for the first session. */
    public static ApacheZkClient connect(String connectString, Duration sessionTimeout) {
        return builder().connectString(connectString).sessionTimeout(sessionTimeout).build();
    }

    /** A builder with defaults: 10 s session timeout, 15 s connect timeout, ZooKeeper's default size limits. */
    public static Builder builder() {
        return new Builder();
    }

    private void start() {
        synchronized (this) {
            current = openSession();
        }
        try {
            firstSession.get(config.connectTimeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            close();
            throw new ZkException.ConnectionLoss(null,
                    "no ZooKeeper session with " + config.connectString + " within " + config.connectTimeout);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            close();
            throw new ZkException.Interrupted(null, "interrupted while connecting to " + config.connectString);
        } catch (ExecutionException e) {
            close();
            ZkException failure = new ZkException.ConnectionLoss(null,
                    "connecting to " + config.connectString + " failed: " + e.getCause().getMessage());
            failure.initCause(e.getCause());
            throw failure;
        }
    }

    private Session openSession() {
        ZKClientConfig clientConfig = new ZKClientConfig();
        // the largest response this client accepts (children lists can be long); requests are checked separately
        clientConfig.setProperty(ZKConfig.JUTE_MAXBUFFER, String.valueOf(4L * config.juteMaxBuffer));
        Session session = new Session();
        try {
            session.zk = new WatchableZooKeeper(config.connectString, (int) config.sessionTimeout.toMillis(),
                    session, clientConfig);
            for (Object[] a : auths) {
                session.zk.addAuthInfo((String) a[0], (byte[]) a[1]); // sent before any request of the session
            }
        } catch (IOException | IllegalArgumentException e) {
            throw new ZkException.BadArguments(null, "cannot connect to " + config.connectString + ": " + e);
        }
        return session;
    }

    /** One ZooKeeper handle (one session) and its default watcher, which turns connection events into states. */
    private final class Session implements org.apache.zookeeper.Watcher {
        volatile WatchableZooKeeper zk;
        private boolean connectedOnce;

        @Override
        public void process(org.apache.zookeeper.WatchedEvent event) {
            if (event.getType() == Event.EventType.None) {
                onConnectionEvent(this, event.getState());
            }
        }
    }

    private void onConnectionEvent(Session session, KeeperState keeperState) {
        ConnectionState next = null;
        synchronized (this) {
            if (closed || session != current) {
                return;
            }
            switch (keeperState) {
                case SyncConnected, ConnectedReadOnly -> {
                    if (!session.connectedOnce) {
                        session.connectedOnce = true;
                        next = ConnectionState.CONNECTED;
                    } else if (state == ConnectionState.SUSPENDED) {
                        next = ConnectionState.RECONNECTED;
                    }
                }
                case Disconnected -> {
                    if (state != null && state.isConnected()) {
                        next = ConnectionState.SUSPENDED;
                    }
                }
                case Expired -> {
                    if (state != ConnectionState.LOST) {
                        next = ConnectionState.LOST;
                    }
                }
                case AuthFailed -> {
                    LOG.warn("ZooKeeper authentication failed for session 0x{}",
                            Long.toHexString(session.zk.getSessionId()));
                    firstSession.completeExceptionally(new ZkException.AuthFailed(null, "authentication failed"));
                }
                default -> {
                    // SaslAuthenticated, Closed (close() reports LOST itself), Unknown: nothing to report
                }
            }
            if (next != null) {
                state = next;
            }
        }
        if (next == null) {
            return;
        }
        LOG.debug("ZooKeeper session 0x{}: {}", Long.toHexString(session.zk.getSessionId()), next);
        listeners.fire(this, next);
        if (next == ConnectionState.CONNECTED) {
            firstSession.complete(null);
        } else if (next == ConnectionState.LOST && config.renewSessionOnExpiry) {
            renewSession();
        }
    }

    private void renewSession() {
        synchronized (this) {
            if (closed) {
                return;
            }
            try {
                current = openSession();
            } catch (ZkException e) {
                LOG.error("Cannot open a new ZooKeeper session after expiry; the client stays LOST", e);
            }
        }
    }

    // ---- session and connection -------------------------------------------------------------------------------

    @Override
    public long sessionId() {
        return current.zk.getSessionId();
    }

    @Override
    public Duration sessionTimeout() {
        return Duration.ofMillis(current.zk.getSessionTimeout());
    }

    @Override
    public ConnectionState state() {
        return state;
    }

    @Override
    public boolean isClosed() {
        return closed;
    }

    @Override
    public int maxDataSize() {
        return config.maxDataSize;
    }

    /** False: ZooKeeper fails a write in flight on a dropped connection with ConnectionLoss, outcome unknown. */
    @Override
    public boolean exactlyOnceWrites() {
        return false;
    }

    @Override
    public void addConnectionStateListener(ConnectionStateListener listener) {
        listeners.add(listener, null);
    }

    @Override
    public void addConnectionStateListener(ConnectionStateListener listener, Executor executor) {
        listeners.add(listener, Objects.requireNonNull(executor, "executor"));
    }

    @Override
    public void removeConnectionStateListener(ConnectionStateListener listener) {
        listeners.remove(listener);
    }

    @Override
    public Set<String> watchedPaths() {
        return closed ? Set.of() : current.zk.watchedPaths();
    }

    @Override
    public void close() {
        Session session;
        boolean reportLost;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            session = current;
            reportLost = state != ConnectionState.LOST;
            state = ConnectionState.LOST;
        }
        firstSession.completeExceptionally(new ZkException.Closed(null, "client closed"));
        if (session != null) {
            try {
                session.zk.close();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (reportLost) {
            listeners.fire(this, ConnectionState.LOST);
        }
    }

    @Override
    public String toString() {
        Session s = current;
        return "ApacheZkClient[" + config.connectString + ", session 0x"
                + (s == null ? "?" : Long.toHexString(s.zk.getSessionId())) + ", " + state + "]";
    }

    // ---- async primitives -------------------------------------------------------------------------------------

    @Override
    public CompletableFuture<Created> createAsync(String path, byte[] data, CreateMode mode) {
        return request(path, f -> {
            RequestChecks.create(path, mode);
            byte[] bytes = checkData(path, data, RequestSize.of(path, data));
            zk().create(path, bytes, ZooDefs.Ids.OPEN_ACL_UNSAFE, Convert.mode(mode),
                    (rc, p, ctx, name, stat) -> complete(f, rc, path, () -> new Created(name, Convert.stat(stat))),
                    null);
        });
    }

    @Override
    public CompletableFuture<Created> createAsync(String path, byte[] data, CreateMode mode,
                                                 List<dev.zkr.client.Acl> acls) {
        return request(path, f -> {
            RequestChecks.create(path, mode);
            List<dev.zkr.client.Acl> checked = RequestChecks.acls(path, acls);
            byte[] bytes = checkData(path, data, RequestSize.of(path, data));
            zk().create(path, bytes, Convert.acls(checked), Convert.mode(mode),
                    (rc, p, ctx, name, stat) -> complete(f, rc, path, () -> new Created(name, Convert.stat(stat))),
                    null);
        });
    }

    @Override
    public CompletableFuture<Created> createAsync(String path, byte[] data, CreateMode mode,
                                                 List<dev.zkr.client.Acl> acls, java.time.Duration ttl) {
        return request(path, f -> {
            if (ttl == null) {
                throw new ZkException.BadArguments(path, "TTL missing");
            }
            RequestChecks.create(path, mode, ttl.toMillis());
            List<org.apache.zookeeper.data.ACL> acl = acls == null ? ZooDefs.Ids.OPEN_ACL_UNSAFE
                    : Convert.acls(RequestChecks.acls(path, acls));
            byte[] bytes = checkData(path, data, RequestSize.of(path, data));
            zk().create(path, bytes, acl, Convert.mode(mode),
                    (rc, p, ctx, name, stat) -> complete(f, rc, path, () -> new Created(name, Convert.stat(stat))),
                    null, ttl.toMillis());
        });
    }

    @Override
    public CompletableFuture<dev.zkr.client.NodeAcl> getAclAsync(String path) {
        return request(path, f -> {
            ZkPaths.validate(path);
            zk().getACL(path, new org.apache.zookeeper.data.Stat(), (rc, p, ctx, acl, stat) -> complete(f, rc, path,
                    () -> new dev.zkr.client.NodeAcl(Convert.fromAcls(acl), Convert.stat(stat))), null);
        });
    }

    @Override
    public CompletableFuture<Stat> setAclAsync(String path, List<dev.zkr.client.Acl> acls, int aversion) {
        return request(path, f -> {
            ZkPaths.validate(path);
            List<dev.zkr.client.Acl> checked = RequestChecks.acls(path, acls);
            zk().setACL(path, Convert.acls(checked), aversion,
                    (rc, p, ctx, stat) -> complete(f, rc, path, () -> Convert.stat(stat)), null);
        });
    }

    /**
     * ZooKeeper's addAuthInfo: queued for the connection and re-sent by ZooKeeper on reconnects (and by this client
     * on a renewed session). ZooKeeper answers a refusal only by closing the connection with an AuthFailed event,
     * so the future completes once the request is queued; a refusal shows as AuthFailed on later calls.
     */
    @Override
    public CompletableFuture<Void> addAuthInfoAsync(String scheme, byte[] auth) {
        return request(null, f -> {
            if (scheme == null || scheme.isEmpty()) {
                throw new ZkException.BadArguments(null, "auth scheme missing");
            }
            byte[] copy = auth == null ? new byte[0] : auth.clone();
            auths.add(new Object[] {scheme, copy});
            zk().addAuthInfo(scheme, copy);
            f.complete(null);
        });
    }

    @Override
    public CompletableFuture<Void> deleteAsync(String path, int version) {
        return request(path, f -> {
            ZkPaths.validate(path);
            zk().delete(path, version, (rc, p, ctx) -> complete(f, rc, path, () -> null), null);
        });
    }

    @Override
    public CompletableFuture<Stat> existsAsync(String path, Watcher watcher) {
        return request(path, f -> {
            ZkPaths.validate(path);
            zk().exists(path, adapt(watcher), (rc, p, ctx, stat) -> {
                if (rc == KeeperException.Code.NONODE.intValue()) {
                    f.complete(null);
                } else {
                    complete(f, rc, path, () -> Convert.stat(stat));
                }
            }, null);
        });
    }

    @Override
    public CompletableFuture<NodeData> getDataAsync(String path, Watcher watcher) {
        return request(path, f -> {
            ZkPaths.validate(path);
            zk().getData(path, adapt(watcher), (rc, p, ctx, data, stat) ->
                    complete(f, rc, path, () -> new NodeData(Convert.nonNull(data), Convert.stat(stat))), null);
        });
    }

    @Override
    public CompletableFuture<Stat> setDataAsync(String path, byte[] data, int version) {
        return request(path, f -> {
            ZkPaths.validate(path);
            byte[] bytes = checkData(path, data, RequestSize.of(path, data));
            zk().setData(path, bytes, version, (rc, p, ctx, stat) -> complete(f, rc, path, () -> Convert.stat(stat)),
                    null);
        });
    }

    @Override
    public CompletableFuture<Children> getChildrenAsync(String path, Watcher watcher) {
        return request(path, f -> {
            ZkPaths.validate(path);
            zk().getChildren(path, adapt(watcher), (rc, p, ctx, children, stat) ->
                    complete(f, rc, path, () -> new Children(List.copyOf(children), Convert.stat(stat))), null);
        });
    }

    @Override
    public CompletableFuture<List<OpResult>> multiAsync(List<Op> ops) {
        return request(null, f -> {
            RequestChecks.required(ops, null, "ops");
            for (Op op : ops) {
                RequestChecks.op(op, config.maxDataSize);
            }
            if (RequestSize.of(ops) > config.juteMaxBuffer) {
                throw new ZkException.DataTooLarge(null, "multi request of about " + RequestSize.of(ops)
                        + " bytes exceeds jute.maxbuffer " + config.juteMaxBuffer);
            }
            zk().multi(Convert.ops(ops), (rc, p, ctx, results) -> {
                if (rc == 0) {
                    f.complete(Convert.results(results));
                } else {
                    f.completeExceptionally(multiFailure(rc, ops, results));
                }
            }, null);
        });
    }

    /** ZooKeeper's client sends read-only ops as one multiRead (3.6+); each op's result, failed or not. */
    @Override
    public CompletableFuture<List<OpResult>> multiReadAsync(List<Op> ops) {
        return request(null, f -> {
            RequestChecks.required(ops, null, "ops");
            for (Op op : ops) {
                RequestChecks.readOp(op);
            }
            if (ops.isEmpty()) {
                f.complete(List.of());
                return;
            }
            // ZooKeeper's client reports the first failed read as the call's rc, with every op's result; the
            // server answered them each alone, and so does this API
            zk().multi(Convert.ops(ops), (rc, p, ctx, results) -> {
                if (results != null && results.size() == ops.size()) {
                    f.complete(Convert.results(results));
                } else {
                    f.completeExceptionally(failure(rc, null));
                }
            }, null);
        });
    }

    @Override
    public CompletableFuture<List<String>> getEphemeralsAsync(String prefix) {
        return request(prefix, f -> {
            ZkPaths.validate(prefix);
            zk().getEphemerals(prefix, (rc, ctx, paths) -> complete(f, rc, prefix,
                    () -> paths.stream().sorted().toList()), null);
        });
    }

    @Override
    public CompletableFuture<Integer> getAllChildrenNumberAsync(String path) {
        return request(path, f -> {
            ZkPaths.validate(path);
            zk().getAllChildrenNumber(path, (rc, p, ctx, number) -> complete(f, rc, path, () -> number), null);
        });
    }

    /** ZooKeeper's client has no asynchronous whoAmI: its blocking call runs on the common pool. */
    @Override
    public CompletableFuture<List<dev.zkr.client.ClientInfo>> whoAmIAsync() {
        WatchableZooKeeper zk;
        try {
            zk = zk();
        } catch (ZkException e) {
            return CompletableFuture.failedFuture(e);
        }
        CompletableFuture<List<dev.zkr.client.ClientInfo>> f = new CompletableFuture<>();
        java.util.concurrent.ForkJoinPool.commonPool().execute(() -> {
            try {
                List<org.apache.zookeeper.data.ClientInfo> infos = zk.whoAmI(); // null when the request failed
                f.complete(infos == null ? List.of() : infos.stream()
                        .map(i -> new dev.zkr.client.ClientInfo(i.getAuthScheme(), i.getUser())).toList());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                f.completeExceptionally(new ZkException.Interrupted(null, "interrupted in whoAmI"));
            } catch (RuntimeException e) {
                f.completeExceptionally(beforeIo(e, null));
            }
        });
        return f;
    }

    @Override
    public CompletableFuture<Void> syncAsync(String path) {
        return request(path, f -> {
            ZkPaths.validate(path);
            zk().sync(path, (rc, p, ctx) -> complete(f, rc, path, () -> null), null);
        });
    }

    @Override
    public CompletableFuture<Void> addWatchAsync(String path, AddWatchMode mode, Watcher watcher) {
        return request(path, f -> {
            ZkPaths.validate(path);
            RequestChecks.required(mode, path, "mode");
            RequestChecks.required(watcher, path, "watcher");
            zk().addWatch(path, new WatcherAdapter(watcher), Convert.mode(mode),
                    (rc, p, ctx) -> complete(f, rc, path, () -> null), null);
        });
    }

    @Override
    public CompletableFuture<Void> removeWatchesAsync(String path, Watcher watcher, WatcherType type, boolean local) {
        return request(path, f -> {
            ZkPaths.validate(path);
            RequestChecks.required(watcher, path, "watcher");
            RequestChecks.required(type, path, "type");
            removeWatches(zk(), path, new WatcherAdapter(watcher), Convert.watcherTypes(type), local, false, f);
        });
    }

    /**
     * Removes the watcher's watches of each ZooKeeper type in turn.
     * Fails with NoWatcher only if no type had a watch.
     */
    private void removeWatches(WatchableZooKeeper zk, String path, WatcherAdapter watcher,
                               List<org.apache.zookeeper.Watcher.WatcherType> types, boolean local,
                               boolean removedAny, CompletableFuture<Void> f) {
        zk.removeWatches(path, watcher, types.get(0), local, (rc, p, ctx) -> {
            boolean noWatcher = rc == KeeperException.Code.NOWATCHER.intValue();
            if (rc != 0 && !noWatcher) {
                f.completeExceptionally(failure(rc, path));
                return;
            }
            boolean removed = removedAny || rc == 0;
            if (types.size() > 1) {
                removeWatches(zk, path, watcher, types.subList(1, types.size()), local, removed, f);
            } else if (removed) {
                f.complete(null);
            } else {
                f.completeExceptionally(failure(rc, path));
            }
        }, null);
    }

    // ---- helpers ----------------------------------------------------------------------------------------------

    private WatchableZooKeeper zk() {
        if (closed) {
            throw new ZkException.Closed(null, "client closed");
        }
        return current.zk;
    }

    private static WatcherAdapter adapt(Watcher watcher) {
        return watcher == null ? null : new WatcherAdapter(watcher);
    }

    /** Data as sent (null becomes empty); fails with DataTooLarge if the data or the whole request is too big. */
    private byte[] checkData(String path, byte[] data, long requestSize) {
        byte[] bytes = RequestChecks.data(path, data, config.maxDataSize);
        if (requestSize > config.juteMaxBuffer) {
            throw new ZkException.DataTooLarge(path,
                    "request of about " + requestSize + " bytes exceeds jute.maxbuffer " + config.juteMaxBuffer);
        }
        return bytes;
    }

    /** A failure raised before any I/O; ZooKeeper's own argument checks become InvalidPath. */
    private static Throwable beforeIo(RuntimeException e, String path) {
        if (e instanceof ZkException) {
            return e;
        }
        if (e instanceof IllegalArgumentException) {
            return new ZkException.InvalidPath(path, e.getMessage());
        }
        ZkException z = new ZkException.SystemError(path, e.toString());
        z.initCause(e);
        return z;
    }

    /**
     * Starts one request: {@code send} checks the arguments and hands ZooKeeper a callback that completes the future;
     * a failure before any I/O fails the future instead of being thrown.
     */
    private static <T> CompletableFuture<T> request(String path, Consumer<CompletableFuture<T>> send) {
        CompletableFuture<T> f = new CompletableFuture<>();
        try {
            send.accept(f);
        } catch (RuntimeException e) {
            f.completeExceptionally(beforeIo(e, path));
        }
        return f;
    }

    /** Completes with the result (built only on success) or with the exception of the result code. */
    private <T> void complete(CompletableFuture<T> f, int rc, String path, Supplier<T> result) {
        if (rc == 0) {
            f.complete(result.get());
        } else {
            f.completeExceptionally(failure(rc, path));
        }
    }

    /** The exception of a ZooKeeper result code; requests cut off by close() fail with Closed. */
    private ZkException failure(int rc, String path) {
        if (closed && (rc == KeeperException.Code.SESSIONEXPIRED.intValue()
                || rc == KeeperException.Code.CONNECTIONLOSS.intValue())) {
            return new ZkException.Closed(path, "client closed");
        }
        return Convert.exception(rc, path);
    }

    /** The exception of the first failing operation, carrying every operation's ErrorResult, as ZooKeeper does. */
    private ZkException multiFailure(int rc, List<Op> ops, List<org.apache.zookeeper.OpResult> results) {
        if (results == null || results.size() != ops.size()) {
            return failure(rc, null);
        }
        String failedPath = null;
        for (int i = 0; i < results.size(); i++) {
            if (results.get(i) instanceof org.apache.zookeeper.OpResult.ErrorResult e && e.getErr() == rc) {
                failedPath = ops.get(i).path();
                break;
            }
        }
        return failure(rc, failedPath).withMultiResults(Convert.results(results));
    }

    /** Configures an {@link ApacheZkClient}. */
    public static final class Builder {

        /** ZooKeeper's default {@code jute.maxbuffer}: the largest request a default server accepts. */
        public static final int DEFAULT_JUTE_MAX_BUFFER = 0xfffff;

        private String connectString;
        private Duration sessionTimeout = Duration.ofSeconds(10);
        private Duration connectTimeout = Duration.ofSeconds(15);
        private int juteMaxBuffer = DEFAULT_JUTE_MAX_BUFFER;
        private int maxDataSize = DEFAULT_JUTE_MAX_BUFFER - 1024;
        private boolean renewSessionOnExpiry = true;
        private final List<Object[]> authInfo = new java.util.ArrayList<>();

        private Builder() {
        }

        /** Authentication added to every session before any request ({@code "digest"}, {@code "user:pw"} bytes). */
        public Builder authInfo(String scheme, byte[] auth) {
            authInfo.add(new Object[] {Objects.requireNonNull(scheme, "scheme"),
                    auth == null ? new byte[0] : auth.clone()});
            return this;
        }

        /** ZooKeeper servers, {@code host:port,host:port,...}, optionally with a chroot suffix (required). */
        public Builder connectString(String connectString) {
            Objects.requireNonNull(connectString, "connectString");
            if (connectString.isBlank()) {
                throw new IllegalArgumentException("connectString is empty");
            }
            this.connectString = connectString;
            return this;
        }

        /** Requested session timeout; the server negotiates it within its bounds. Default 10 s. */
        public Builder sessionTimeout(Duration sessionTimeout) {
            this.sessionTimeout = positive(sessionTimeout, "sessionTimeout");
            return this;
        }

        /** How long {@link #build()} waits for the first session before failing with ConnectionLoss. Default 15 s. */
        public Builder connectTimeout(Duration connectTimeout) {
            this.connectTimeout = positive(connectTimeout, "connectTimeout");
            return this;
        }

        /**
         * The servers' {@code jute.maxbuffer} (default 1 MiB - 1 byte, ZooKeeper's default). A server closes the
         * connection of a client that sends a larger request, so such requests fail with DataTooLarge instead.
         */
        public Builder juteMaxBuffer(int juteMaxBuffer) {
            if (juteMaxBuffer <= 1024) {
                throw new IllegalArgumentException("juteMaxBuffer too small: " + juteMaxBuffer);
            }
            this.juteMaxBuffer = juteMaxBuffer;
            return this;
        }

        /** Largest node data accepted (default {@code jute.maxbuffer} - 1 KiB = 1,047,551 bytes). */
        public Builder maxDataSize(int maxDataSize) {
            if (maxDataSize <= 0) {
                throw new IllegalArgumentException("maxDataSize must be positive: " + maxDataSize);
            }
            this.maxDataSize = maxDataSize;
            return this;
        }

        /** Whether a new session is opened after an expired one was reported LOST (default true). */
        public Builder renewSessionOnExpiry(boolean renew) {
            this.renewSessionOnExpiry = renew;
            return this;
        }

        /** Connects and waits for the first session; fails with ConnectionLoss after the connect timeout. */
        public ApacheZkClient build() {
            if (connectString == null) {
                throw new IllegalStateException("connectString is required");
            }
            ApacheZkClient client = new ApacheZkClient(this.copy());
            client.start();
            return client;
        }

        private Builder copy() {
            Builder b = new Builder();
            b.connectString = connectString;
            b.sessionTimeout = sessionTimeout;
            b.connectTimeout = connectTimeout;
            b.juteMaxBuffer = juteMaxBuffer;
            b.maxDataSize = maxDataSize;
            b.renewSessionOnExpiry = renewSessionOnExpiry;
            b.authInfo.addAll(authInfo);
            return b;
        }

        private static Duration positive(Duration d, String name) {
            Objects.requireNonNull(d, name);
            if (d.isNegative() || d.isZero()) {
                throw new IllegalArgumentException(name + " must be positive: " + d);
            }
            return d;
        }
    }
}
