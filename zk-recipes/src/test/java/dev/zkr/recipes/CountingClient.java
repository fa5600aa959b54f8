package dev.zkr.recipes;

import dev.zkr.client.AddWatchMode;
import dev.zkr.client.Children;
import dev.zkr.client.ConnectionState;
import dev.zkr.client.ConnectionStateListener;
import dev.zkr.client.Created;
import dev.zkr.client.CreateMode;
import dev.zkr.client.NodeData;
import dev.zkr.client.Op;
import dev.zkr.client.OpResult;
import dev.zkr.client.Stat;
import dev.zkr.client.Watcher;
import dev.zkr.client.WatcherType;
import dev.zkr.client.ZkClient;

import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.LongAdder;

/**
 * A delegating {@link ZkClient} that counts the requests it sends, per kind, and the watch events it delivers: a
 * deterministic measure of a recipe's round trips. The blocking and parent-creating conveniences are the interface
 * defaults, so they are counted through the primitives they use.
 */
final class CountingClient implements ZkClient {

    /** The kinds of request (and watch events, {@link #EVENT}). */
    enum Kind { CREATE, DELETE, EXISTS, GET_DATA, SET_DATA, GET_CHILDREN, MULTI, SYNC, ADD_WATCH, REMOVE_WATCHES, EVENT }

    private final ZkClient delegate;
    private final Map<Kind, LongAdder> counts = new EnumMap<>(Kind.class);
    private final LongAdder listedNames = new LongAdder();
    /** One wrapper per watcher, so a removal passes the object the watch was set with. */
    private final Map<Watcher, Watcher> wrappers = new java.util.WeakHashMap<>();

    CountingClient(ZkClient delegate) {
        this.delegate = delegate;
        for (Kind k : Kind.values()) {
            counts.put(k, new LongAdder());
        }
    }

    private void count(Kind kind) {
        counts.get(kind).increment();
    }

    /** Requests of one kind (or events) so far. */
    long count(Kind kind, Kind... more) {
        long n = counts.get(kind).sum();
        for (Kind k : more) {
            n += counts.get(k).sum();
        }
        return n;
    }

    /** All requests so far (watch events not included). */
    long requests() {
        long n = 0;
        for (Kind k : Kind.values()) {
            if (k != Kind.EVENT) {
                n += counts.get(k).sum();
            }
        }
        return n;
    }

    /** A snapshot of the counts. */
    Map<Kind, Long> snapshot() {
        Map<Kind, Long> out = new EnumMap<>(Kind.class);
        counts.forEach((k, v) -> out.put(k, v.sum()));
        return out;
    }

    /** The names in every listing answered so far (the volume of the getChildren replies). */
    long listedNames() {
        return listedNames.sum();
    }

    void reset() {
        counts.values().forEach(LongAdder::reset);
        listedNames.reset();
    }

    private Watcher counted(Watcher w) {
        if (w == null) {
            return null;
        }
        synchronized (wrappers) {
            return wrappers.computeIfAbsent(w, CountedWatcher::new);
        }
    }

    /** Wraps a watcher; equal to another wrapper of the same watcher, so removeWatches finds it. */
    private final class CountedWatcher implements Watcher {
        private final Watcher inner;

        CountedWatcher(Watcher inner) {
            this.inner = inner;
        }

        @Override
        public void process(dev.zkr.client.WatchedEvent event) {
            count(Kind.EVENT);
            inner.process(event);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof CountedWatcher c && c.inner.equals(inner);
        }

        @Override
        public int hashCode() {
            return inner.hashCode();
        }
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

    /** The delegate's: counting changes no outcome. */
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
        return delegate.watchedPaths();
    }

    @Override
    public void close() {
        delegate.close();
    }

    @Override
    public CompletableFuture<Created> createAsync(String path, byte[] data, CreateMode mode) {
        count(Kind.CREATE);
        return delegate.createAsync(path, data, mode);
    }

    @Override
    public CompletableFuture<Created> createAsync(String path, byte[] data, CreateMode mode,
                                                  java.util.List<dev.zkr.client.Acl> acls) {
        count(Kind.CREATE);
        return delegate.createAsync(path, data, mode, acls);
    }

    @Override
    public CompletableFuture<Created> createAsync(String path, byte[] data, CreateMode mode,
                                                  java.util.List<dev.zkr.client.Acl> acls, java.time.Duration ttl) {
        count(Kind.CREATE);
        return delegate.createAsync(path, data, mode, acls, ttl);
    }

    @Override
    public CompletableFuture<Void> deleteAsync(String path, int version) {
        count(Kind.DELETE);
        return delegate.deleteAsync(path, version);
    }

    @Override
    public CompletableFuture<Stat> existsAsync(String path, Watcher watcher) {
        count(Kind.EXISTS);
        return delegate.existsAsync(path, counted(watcher));
    }

    @Override
    public CompletableFuture<NodeData> getDataAsync(String path, Watcher watcher) {
        count(Kind.GET_DATA);
        return delegate.getDataAsync(path, counted(watcher));
    }

    @Override
    public CompletableFuture<Stat> setDataAsync(String path, byte[] data, int version) {
        count(Kind.SET_DATA);
        return delegate.setDataAsync(path, data, version);
    }

    @Override
    public CompletableFuture<Children> getChildrenAsync(String path, Watcher watcher) {
        count(Kind.GET_CHILDREN);
        CompletableFuture<Children> reply = delegate.getChildrenAsync(path, counted(watcher));
        reply.thenAccept(children -> listedNames.add(children.names().size()));
        return reply;
    }

    @Override
    public CompletableFuture<List<OpResult>> multiAsync(List<Op> ops) {
        count(Kind.MULTI);
        return delegate.multiAsync(ops);
    }

    @Override
    public CompletableFuture<Void> syncAsync(String path) {
        count(Kind.SYNC);
        return delegate.syncAsync(path);
    }

    @Override
    public CompletableFuture<Void> addWatchAsync(String path, AddWatchMode mode, Watcher watcher) {
        count(Kind.ADD_WATCH);
        return delegate.addWatchAsync(path, mode, counted(watcher));
    }

    @Override
    public CompletableFuture<Void> addWatchAsync(String path, AddWatchMode mode, boolean withData, Watcher watcher) {
        count(Kind.ADD_WATCH);
        return delegate.addWatchAsync(path, mode, withData, counted(watcher));
    }

    @Override
    public CompletableFuture<Void> removeWatchesAsync(String path, Watcher watcher, WatcherType type, boolean local) {
        count(Kind.REMOVE_WATCHES);
        return delegate.removeWatchesAsync(path, counted(watcher), type, local);
    }

    @Override
    public String toString() {
        return "Counting[" + delegate + "]";
    }
}
