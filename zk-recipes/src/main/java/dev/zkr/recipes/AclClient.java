package dev.zkr.recipes;

import dev.zkr.client.Acl;
import dev.zkr.client.AddWatchMode;
import dev.zkr.client.Children;
import dev.zkr.client.ConnectionState;
import dev.zkr.client.ConnectionStateListener;
import dev.zkr.client.CreateMode;
import dev.zkr.client.Created;
import dev.zkr.client.NodeAcl;
import dev.zkr.client.NodeData;
import dev.zkr.client.Op;
import dev.zkr.client.OpResult;
import dev.zkr.client.Stat;
import dev.zkr.client.Watcher;
import dev.zkr.client.WatcherType;
import dev.zkr.client.ZkClient;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;

/**
 * A client that creates every node with one ACL: {@link #createAsync(String, byte[], CreateMode)} and the creates of
 * a multi get it (a create that names its own ACL keeps it), so every recipe built on this client, and the parents
 * it creates, are protected alike. Everything else goes to the wrapped client unchanged.
 */
final class AclClient implements ZkClient {

    private final ZkClient delegate;
    private final List<Acl> acl;
    private final Map<ConnectionStateListener, ConnectionStateListener> listeners = new ConcurrentHashMap<>();

    AclClient(ZkClient delegate, List<Acl> acl) {
        this.delegate = delegate instanceof AclClient a ? a.delegate : delegate;
        this.acl = List.copyOf(acl);
    }

    List<Acl> acl() {
        return acl;
    }

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
        delegate.addConnectionStateListener(wrap(listener));
    }

    @Override
    public void addConnectionStateListener(ConnectionStateListener listener, Executor executor) {
        delegate.addConnectionStateListener(wrap(listener), executor);
    }

    /** The listener sees this client (so what it calls keeps the ACL). */
    private ConnectionStateListener wrap(ConnectionStateListener listener) {
        return listeners.computeIfAbsent(listener, l -> (c, s) -> l.stateChanged(this, s));
    }

    @Override
    public void removeConnectionStateListener(ConnectionStateListener listener) {
        ConnectionStateListener wrapped = listeners.remove(listener);
        if (wrapped != null) {
            delegate.removeConnectionStateListener(wrapped);
        }
    }

    @Override
    public Set<String> watchedPaths() {
        return delegate.watchedPaths();
    }

    /** Closes the wrapped client (the recipes never do; the application owns it). */
    @Override
    public void close() {
        delegate.close();
    }

    @Override
    public CompletableFuture<Created> createAsync(String path, byte[] data, CreateMode mode) {
        return delegate.createAsync(path, data, mode, acl);
    }

    @Override
    public CompletableFuture<Created> createAsync(String path, byte[] data, CreateMode mode, List<Acl> acls) {
        return delegate.createAsync(path, data, mode, acls);
    }

    @Override
    public CompletableFuture<Created> createAsync(String path, byte[] data, CreateMode mode, List<Acl> acls,
                                                  java.time.Duration ttl) {
        return delegate.createAsync(path, data, mode, acls == null ? acl : acls, ttl);
    }

    @Override
    public CompletableFuture<Void> deleteAsync(String path, int version) {
        return delegate.deleteAsync(path, version);
    }

    @Override
    public CompletableFuture<Stat> existsAsync(String path, Watcher watcher) {
        return delegate.existsAsync(path, watcher);
    }

    @Override
    public CompletableFuture<NodeData> getDataAsync(String path, Watcher watcher) {
        return delegate.getDataAsync(path, watcher);
    }

    @Override
    public CompletableFuture<Stat> setDataAsync(String path, byte[] data, int version) {
        return delegate.setDataAsync(path, data, version);
    }

    @Override
    public CompletableFuture<Children> getChildrenAsync(String path, Watcher watcher) {
        return delegate.getChildrenAsync(path, watcher);
    }

    @Override
    public CompletableFuture<List<OpResult>> multiAsync(List<Op> ops) {
        List<Op> withAcl = new ArrayList<>(ops.size());
        for (Op op : ops) {
            withAcl.add(op instanceof Op.Create c && c.acls() == null
                    ? new Op.Create(c.path(), c.data(), c.mode(), acl, c.ttlMs()) : op);
        }
        return delegate.multiAsync(withAcl);
    }

    @Override
    public CompletableFuture<Void> syncAsync(String path) {
        return delegate.syncAsync(path);
    }

    @Override
    public CompletableFuture<Void> addWatchAsync(String path, AddWatchMode mode, Watcher watcher) {
        return delegate.addWatchAsync(path, mode, watcher);
    }

    @Override
    public CompletableFuture<Void> addWatchAsync(String path, AddWatchMode mode, boolean withData, Watcher watcher) {
        return delegate.addWatchAsync(path, mode, withData, watcher);
    }

    @Override
    public CompletableFuture<Void> removeWatchesAsync(String path, Watcher watcher, WatcherType type, boolean local) {
        return delegate.removeWatchesAsync(path, watcher, type, local);
    }

    @Override
    public CompletableFuture<NodeAcl> getAclAsync(String path) {
        return delegate.getAclAsync(path);
    }

    @Override
    public CompletableFuture<Stat> setAclAsync(String path, List<Acl> acls, int aversion) {
        return delegate.setAclAsync(path, acls, aversion);
    }

    @Override
    public CompletableFuture<Void> addAuthInfoAsync(String scheme, byte[] auth) {
        return delegate.addAuthInfoAsync(scheme, auth);
    }

    @Override
    public String toString() {
        return delegate + " with ACL " + acl;
    }
}
