package dev.zkr.client;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.WeakHashMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;

/**
 * A client whose paths live under a chroot: {@code host:port/app} in the connect string makes every path the caller
 * gives relative to {@code /app} on the server ({@code /} is {@code /app} itself), and every path the server gives
 * back (created paths, watch events, errors, watched paths) relative to it again, as ZooKeeper's client does. The
 * chroot node is not created: until it exists, operations under it fail with NoNode, as on ZooKeeper. A decorator
 * of the client the builder opened; holds no state of its own but the watchers it wrapped.
 */
final class ChrootedZkClient implements ZkClient {

    private final ZkClient delegate;
    private final String chroot;
    /** The caller's watchers and the wrappers that strip the chroot from their events (one wrapper per watcher). */
    private final Map<Watcher, Watcher> wrapped = Collections.synchronizedMap(new WeakHashMap<>());

    ChrootedZkClient(ZkClient delegate, String chroot) {
        this.delegate = delegate;
        this.chroot = chroot;
    }

    /**
     * Splits {@code host:port,host:port/app} into the servers and the chroot ({@code null} when there is none or it
     * is {@code /}).
     *
     * @throws IllegalArgumentException if the chroot is not a valid path
     */
    static String[] split(String connectString) {
        int slash = connectString.indexOf('/');
        if (slash < 0) {
            return new String[] {connectString, null};
        }
        String servers = connectString.substring(0, slash);
        String chroot = connectString.substring(slash);
        try {
            ZkPaths.validate(chroot);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("invalid chroot '" + chroot + "' in connect string: " + e.getMessage(),
                    e);
        }
        return new String[] {servers, chroot.equals("/") ? null : chroot};
    }

    /**
     * The server's path for a caller's path. An invalid path is passed on as it is, so that the client under this
     * one fails it as it fails any invalid path, naming the caller's path.
     */
    String toServer(String path) {
        return toServer(path, false);
    }

    private String toServer(String path, boolean sequential) {
        try {
            ZkPaths.validate(path, sequential);
        } catch (ZkException.InvalidPath e) {
            return path;
        }
        return path.equals("/") ? chroot : chroot + path;
    }

    /** The caller's path for a server's path (a path outside the chroot is returned as it is). */
    String toClient(String path) {
        if (path == null || !path.startsWith(chroot)) {
            return path;
        }
        if (path.length() == chroot.length()) {
            return "/";
        }
        return path.charAt(chroot.length()) == '/' ? path.substring(chroot.length()) : path;
    }

    private Watcher wrap(Watcher watcher) {
        if (watcher == null) {
            return null;
        }
        return wrapped.computeIfAbsent(watcher, w -> event -> w.process(
                new WatchedEvent(event.type(), toClient(event.path()), event.zxid(), event.data())));
    }

    /** The future with a failure's path given back relative to the chroot. */
    private <T> CompletableFuture<T> mapped(CompletableFuture<T> f) {
        CompletableFuture<T> out = new CompletableFuture<>();
        f.whenComplete((v, e) -> {
            if (e == null) {
                out.complete(v);
            } else {
                out.completeExceptionally(clientError(e));
            }
        });
        return out;
    }

    private Throwable clientError(Throwable e) {
        Throwable t = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
        if (!(t instanceof ZkException z) || z.path() == null || z.path().equals(toClient(z.path()))) {
            return t;
        }
        String prefix = z.code().name() + " for " + z.path();
        String message = z.getMessage() != null && z.getMessage().startsWith(prefix + ": ")
                ? z.getMessage().substring(prefix.length() + 2) : null;
        ZkException out = ZkException.of(z.code(), toClient(z.path()), message);
        if (z.multiResults() != null) {
            out.withMultiResults(z.multiResults());
        }
        out.initCause(z);
        return out;
    }

    private static boolean sequential(CreateMode mode) {
        return mode != null && mode.isSequential();
    }

    private Created created(Created c) {
        return new Created(toClient(c.path()), c.stat());
    }

    private Op toServer(Op op) {
        if (op instanceof Op.Create c) {
            return new Op.Create(toServer(c.path(), sequential(c.mode())), c.data(), c.mode(), c.acls(), c.ttlMs());
        } else if (op instanceof Op.Delete d) {
            return new Op.Delete(toServer(d.path()), d.version());
        } else if (op instanceof Op.SetData s) {
            return new Op.SetData(toServer(s.path()), s.data(), s.version());
        } else if (op instanceof Op.Check c) {
            return new Op.Check(toServer(c.path()), c.version());
        } else if (op instanceof Op.GetData g) {
            return new Op.GetData(toServer(g.path()));
        } else if (op instanceof Op.GetChildren g) {
            return new Op.GetChildren(toServer(g.path()));
        }
        return op; // a null op: the client under this one refuses it
    }

    private OpResult toClient(OpResult r) {
        return r instanceof OpResult.CreateResult c ? new OpResult.CreateResult(toClient(c.path()), c.stat()) : r;
    }

    // ---- session and connection: the delegate's -------------------------------------------------------------

    @Override
    public long sessionId() {
        return delegate.sessionId();
    }

    @Override
    public Duration sessionTimeout() {
        return delegate.sessionTimeout();
    }

    @Override
    public ConnectionState state() {
        return delegate.state();
    }

    @Override
    public boolean isClosed() {
        return delegate.isClosed();
    }

    @Override
    public int maxDataSize() {
        return delegate.maxDataSize();
    }

    @Override
    public boolean exactlyOnceWrites() {
        return delegate.exactlyOnceWrites();
    }

    @Override
    public void addConnectionStateListener(ConnectionStateListener listener) {
        delegate.addConnectionStateListener(listener);
    }

    @Override
    public void addConnectionStateListener(ConnectionStateListener listener, Executor executor) {
        delegate.addConnectionStateListener(listener, executor);
    }

    @Override
    public void removeConnectionStateListener(ConnectionStateListener listener) {
        delegate.removeConnectionStateListener(listener);
    }

    @Override
    public Set<String> watchedPaths() {
        Set<String> out = new LinkedHashSet<>();
        for (String p : delegate.watchedPaths()) {
            out.add(toClient(p));
        }
        return out;
    }

    @Override
    public void close() {
        delegate.close();
    }

    // ---- paths in, paths out ------------------------------------------------------------------------------------

    @Override
    public CompletableFuture<Created> createAsync(String path, byte[] data, CreateMode mode) {
        return mapped(delegate.createAsync(toServer(path, sequential(mode)), data, mode).thenApply(this::created));
    }

    @Override
    public CompletableFuture<Created> createAsync(String path, byte[] data, CreateMode mode, List<Acl> acls) {
        return mapped(delegate.createAsync(toServer(path, sequential(mode)), data, mode, acls).thenApply(this::created));
    }

    @Override
    public CompletableFuture<Created> createAsync(String path, byte[] data, CreateMode mode, List<Acl> acls,
                                                  java.time.Duration ttl) {
        return mapped(delegate.createAsync(toServer(path, sequential(mode)), data, mode, acls, ttl)
                .thenApply(this::created));
    }

    @Override
    public CompletableFuture<Void> deleteAsync(String path, int version) {
        return mapped(delegate.deleteAsync(toServer(path), version));
    }

    @Override
    public CompletableFuture<Stat> existsAsync(String path, Watcher watcher) {
        return mapped(delegate.existsAsync(toServer(path), wrap(watcher)));
    }

    @Override
    public CompletableFuture<NodeData> getDataAsync(String path, Watcher watcher) {
        return mapped(delegate.getDataAsync(toServer(path), wrap(watcher)));
    }

    @Override
    public CompletableFuture<Stat> setDataAsync(String path, byte[] data, int version) {
        return mapped(delegate.setDataAsync(toServer(path), data, version));
    }

    @Override
    public CompletableFuture<Children> getChildrenAsync(String path, Watcher watcher) {
        return mapped(delegate.getChildrenAsync(toServer(path), wrap(watcher)));
    }

    @Override
    public CompletableFuture<List<OpResult>> multiAsync(List<Op> ops) {
        if (ops == null) {
            return delegate.multiAsync(null); // refused by the client under this one, as any null argument
        }
        List<Op> server = new ArrayList<>(ops.size());
        for (Op op : ops) {
            server.add(toServer(op));
        }
        return mapped(delegate.multiAsync(server).thenApply(results -> {
            List<OpResult> out = new ArrayList<>(results.size());
            for (OpResult r : results) {
                out.add(toClient(r));
            }
            return out;
        }));
    }

    @Override
    public CompletableFuture<List<OpResult>> multiReadAsync(List<Op> ops) {
        if (ops == null) {
            return delegate.multiReadAsync(null);
        }
        List<Op> server = new ArrayList<>(ops.size());
        for (Op op : ops) {
            server.add(toServer(op));
        }
        return mapped(delegate.multiReadAsync(server));
    }

    /** The prefix goes under the chroot as a plain string, as ZooKeeper's client sends it; paths come back relative. */
    @Override
    public CompletableFuture<List<String>> getEphemeralsAsync(String prefix) {
        String serverPrefix = prefix == null ? null : prefix.equals("/") ? chroot : chroot + prefix;
        return mapped(delegate.getEphemeralsAsync(serverPrefix).thenApply(paths -> {
            List<String> out = new ArrayList<>(paths.size());
            for (String p : paths) {
                out.add(toClient(p));
            }
            return out;
        }));
    }

    @Override
    public CompletableFuture<Integer> getAllChildrenNumberAsync(String path) {
        return mapped(delegate.getAllChildrenNumberAsync(toServer(path)));
    }

    @Override
    public CompletableFuture<List<ClientInfo>> whoAmIAsync() {
        return delegate.whoAmIAsync();
    }

    @Override
    public CompletableFuture<List<EnsembleMember>> membersAsync() {
        return delegate.membersAsync();
    }

    @Override
    public CompletableFuture<List<EnsembleMember>> reconfigAsync(MembershipChange change) {
        return delegate.reconfigAsync(change);
    }

    @Override
    public CompletableFuture<Void> syncAsync(String path) {
        return mapped(delegate.syncAsync(toServer(path)));
    }

    @Override
    public CompletableFuture<Void> addWatchAsync(String path, AddWatchMode mode, Watcher watcher) {
        return mapped(delegate.addWatchAsync(toServer(path), mode, wrap(watcher)));
    }

    @Override
    public CompletableFuture<Void> addWatchAsync(String path, AddWatchMode mode, boolean withData, Watcher watcher) {
        return mapped(delegate.addWatchAsync(toServer(path), mode, withData, wrap(watcher)));
    }

    @Override
    public CompletableFuture<Void> removeWatchesAsync(String path, Watcher watcher, WatcherType type, boolean local) {
        return mapped(delegate.removeWatchesAsync(toServer(path), wrap(watcher), type, local));
    }

    @Override
    public CompletableFuture<NodeAcl> getAclAsync(String path) {
        return mapped(delegate.getAclAsync(toServer(path)));
    }

    @Override
    public CompletableFuture<Stat> setAclAsync(String path, List<Acl> acls, int aversion) {
        return mapped(delegate.setAclAsync(toServer(path), acls, aversion));
    }

    @Override
    public CompletableFuture<Void> addAuthInfoAsync(String scheme, byte[] auth) {
        return delegate.addAuthInfoAsync(scheme, auth);
    }

    @Override
    public String toString() {
        return delegate + " chroot " + chroot;
    }
}
