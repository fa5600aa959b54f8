package dev.zkr.recipes;

import dev.zkr.client.AddWatchMode;
import dev.zkr.client.Children;
import dev.zkr.client.ConnectionState;
import dev.zkr.client.ConnectionStateListener;
import dev.zkr.client.CreateMode;
import dev.zkr.client.Created;
import dev.zkr.client.NodeData;
import dev.zkr.client.Op;
import dev.zkr.client.OpResult;
import dev.zkr.client.Stat;
import dev.zkr.client.Watcher;
import dev.zkr.client.WatcherType;
import dev.zkr.client.ZkClient;
import dev.zkr.client.ZkException;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;

/**
 * A client that loses responses on purpose: the next {@code n} creates (or multis) whose path matches, or the
 * next delete, are applied on the server, then reported as {@link ZkException.ConnectionLoss}, as if the
 * connection dropped before the response arrived. Everything else is delegated, but {@link #exactlyOnceWrites()}
 * is false whatever the delegate's: recipes on it take the paths of a client without exactly-once writes.
 */
public final class LostResponseClient implements ZkClient {

    private final ZkClient delegate;
    private final AtomicInteger createsToLose = new AtomicInteger();
    private final AtomicInteger multisToLose = new AtomicInteger();
    private final AtomicInteger setDataToLose = new AtomicInteger();
    private final AtomicReference<CompletableFuture<?>> setDataGate = new AtomicReference<>();
    private final AtomicInteger lost = new AtomicInteger();
    private final AtomicReference<CompletableFuture<?>> deletesToLose = new AtomicReference<>();
    private volatile Predicate<String> matching = p -> true;
    private volatile Predicate<List<Op>> matchingMultis = ops -> true;
    private volatile Runnable onLoss = () -> { };
    private final AtomicReference<Runnable> beforeMulti = new AtomicReference<>();
    private volatile Predicate<String> interruptCreates;
    private final AtomicInteger multisToDelay = new AtomicInteger();
    private final AtomicReference<Runnable> delayedMulti = new AtomicReference<>();
    private final AtomicReference<Predicate<String>> delayWrites = new AtomicReference<>();
    private final AtomicReference<Runnable> heldBack = new AtomicReference<>();
    private final CompletableFuture<Void> heldBackDone = new CompletableFuture<>();

    private volatile CompletableFuture<?> listingGate;

    public LostResponseClient(ZkClient delegate) {
        this.delegate = delegate;
    }

    /**
     * Listings sent from now on are answered (to the caller) only once {@code gate} completes: the server answered
     * them, the caller does not know it yet, as if their responses were slow.
     */
    public LostResponseClient holdListings(CompletableFuture<?> gate) {
        listingGate = gate;
        return this;
    }

    /** Loses the responses of the next n creates whose path matches. */
    public LostResponseClient loseCreates(int n, Predicate<String> paths) {
        matching = paths;
        createsToLose.set(n);
        return this;
    }

    /**
     * The next multi is answered ConnectionLoss at once and reaches the server only after the caller's next
     * {@code exists} has been answered there (before that answer is handed back): a request still in flight through
     * a slow server when the client looks whether it was applied.
     */
    public LostResponseClient delayNextMultiPastTheNextExists() {
        multisToDelay.set(1);
        return this;
    }

    /** Loses the responses of the next n multis. */
    public LostResponseClient loseMultis(int n) {
        return loseMultis(n, ops -> true);
    }

    /** Loses the responses of the next n multis whose ops match. */
    public LostResponseClient loseMultis(int n, Predicate<List<Op>> which) {
        matchingMultis = which;
        multisToLose.set(n);
        return this;
    }

    /**
     * Runs {@code action} (on another thread) each time a response is lost, after the request was applied and
     * before the caller sees the ConnectionLoss: e.g. stop the server, so the connection is really gone as well.
     */
    public LostResponseClient onLoss(Runnable action) {
        onLoss = action;
        return this;
    }

    /**
     * Loses the response of the next delete: it is applied on the server, and reported as ConnectionLoss once
     * {@code gate} completes.
     */
    public LostResponseClient loseNextDelete(CompletableFuture<?> gate) {
        deletesToLose.set(gate);
        return this;
    }

    /**
     * Runs {@code action} on the caller's thread just before the next multi is sent, e.g. another consumer's take,
     * so that this client's claim loses a race deterministically.
     */
    public LostResponseClient beforeNextMulti(Runnable action) {
        beforeMulti.set(action);
        return this;
    }

    /**
     * Interrupts the calling thread right after the next create whose path matches is sent, before its response:
     * an interrupt "at the wrong time" (the node is made, the caller does not learn it).
     */
    public LostResponseClient interruptAfterNextCreate(Predicate<String> paths) {
        interruptCreates = paths;
        return this;
    }

    /**
     * The next setData is sent at once, but its response is handed back only once {@code gate} completes: a slow
     * answer (the write applied on the server long before its caller hears of it).
     */
    public LostResponseClient delayNextSetDataResponse(CompletableFuture<?> gate) {
        setDataGate.set(gate);
        return this;
    }

    /** Loses the responses of the next n setData requests (applied on the server, reported as ConnectionLoss). */
    public LostResponseClient loseSetData(int n) {
        setDataToLose.set(n);
        return this;
    }

    /**
     * Holds back the next create or multi that touches a matching path: its caller sees ConnectionLoss at once, and
     * the request reaches the server only right after the next create or multi this client sends, as a request
     * stuck in a stopped follower that is applied after the client reconnected elsewhere and went on (a look-up in
     * between does not show it on any server). {@link #heldBackDone()} completes when it was answered.
     */
    public LostResponseClient delayNextWrite(Predicate<String> paths) {
        delayWrites.set(paths);
        return this;
    }

    /** Completes once the request held back by {@link #delayNextWrite} was sent and answered (either way). */
    public CompletableFuture<Void> heldBackDone() {
        return heldBackDone;
    }

    /** True (and the request held back) if this write is the one {@link #delayNextWrite} asked for. */
    private boolean holdBack(List<String> paths, java.util.function.Supplier<CompletableFuture<?>> send) {
        Predicate<String> delay = delayWrites.get();
        if (delay == null || paths.stream().noneMatch(delay) || !delayWrites.compareAndSet(delay, null)) {
            return false;
        }
        heldBack.set(() -> send.get().handle((v, e) -> heldBackDone.complete(null)));
        lost.incrementAndGet();
        return true;
    }

    /** After a request was sent: the one held back goes now (it is applied after that one). */
    private void releaseHeldBack() {
        Runnable r = heldBack.getAndSet(null);
        if (r != null) {
            r.run();
        }
    }

    /** How many responses were lost so far. */
    public int lost() {
        return lost.get();
    }

    private <T> CompletableFuture<T> loseIf(boolean lose, CompletableFuture<T> f, String path) {
        if (!lose) {
            return f;
        }
        Runnable action = onLoss;
        return f.handle((v, e) -> null)
                .thenCompose(x -> CompletableFuture.runAsync(action))
                .handle((v, e) -> {
                    lost.incrementAndGet();
                    throw new ZkException.ConnectionLoss(path, "response lost (test)");
                });
    }

    private static boolean take(AtomicInteger counter) {
        return counter.getAndUpdate(n -> n > 0 ? n - 1 : 0) > 0;
    }

    @Override
    public CompletableFuture<Created> createAsync(String path, byte[] data, CreateMode mode) {
        return create(path, () -> delegate.createAsync(path, data, mode));
    }

    @Override
    public CompletableFuture<Created> createAsync(String path, byte[] data, CreateMode mode,
                                                  List<dev.zkr.client.Acl> acls) {
        return create(path, () -> delegate.createAsync(path, data, mode, acls));
    }

    @Override
    public CompletableFuture<Created> createAsync(String path, byte[] data, CreateMode mode,
                                                  List<dev.zkr.client.Acl> acls, java.time.Duration ttl) {
        return create(path, () -> delegate.createAsync(path, data, mode, acls, ttl));
    }

    /** Every form of create: held back, lost or sent as this client is told. */
    private CompletableFuture<Created> create(String path, java.util.function.Supplier<CompletableFuture<Created>> send) {
        if (holdBack(List.of(path), send::get)) {
            return CompletableFuture.failedFuture(new ZkException.ConnectionLoss(path, "request held back (test)"));
        }
        boolean lose = matching.test(path) && take(createsToLose);
        CompletableFuture<Created> sent = loseIf(lose, send.get(), path);
        releaseHeldBack();
        Predicate<String> interrupt = interruptCreates;
        if (interrupt != null && interrupt.test(path)) {
            interruptCreates = null;
            Thread.currentThread().interrupt();
        }
        return sent;
    }

    @Override
    public CompletableFuture<Void> deleteAsync(String path, int version) {
        CompletableFuture<?> gate = deletesToLose.getAndUpdate(g -> null);
        CompletableFuture<Void> f = delegate.deleteAsync(path, version);
        if (gate == null) {
            return f;
        }
        // applied on the server; the loss is reported only once the gate opens (others may act meanwhile)
        return f.handle((v, e) -> null).thenCompose(x -> gate).handle((v, e) -> {
            lost.incrementAndGet();
            throw new ZkException.ConnectionLoss(path, "response lost (test)");
        });
    }

    @Override
    public CompletableFuture<List<OpResult>> multiAsync(List<Op> ops) {
        Runnable before = beforeMulti.getAndSet(null);
        if (before != null) {
            before.run();
        }
        if (take(multisToDelay)) {
            delayedMulti.set(() -> delegate.multiAsync(ops).handle((r, e) -> null).join());
            lost.incrementAndGet();
            return CompletableFuture.failedFuture(new ZkException.ConnectionLoss(null, "response lost (test)"));
        }
        if (holdBack(ops.stream().map(Op::path).toList(), () -> delegate.multiAsync(ops))) {
            return CompletableFuture.failedFuture(new ZkException.ConnectionLoss(null, "request held back (test)"));
        }
        boolean lose = matchingMultis.test(ops) && take(multisToLose);
        CompletableFuture<List<OpResult>> sent = loseIf(lose, delegate.multiAsync(ops), null);
        releaseHeldBack();
        return sent;
    }

    @Override public long sessionId() { return delegate.sessionId(); }
    @Override public Duration sessionTimeout() { return delegate.sessionTimeout(); }
    @Override public ConnectionState state() { return delegate.state(); }
    @Override public boolean isClosed() { return delegate.isClosed(); }
    @Override public int maxDataSize() { return delegate.maxDataSize(); }
    /** False: this client loses write responses as ConnectionLoss, as a client without exactly-once writes does. */
    @Override public boolean exactlyOnceWrites() { return false; }
    @Override public void addConnectionStateListener(ConnectionStateListener l) { delegate.addConnectionStateListener(l); }
    @Override public void addConnectionStateListener(ConnectionStateListener l, Executor e) { delegate.addConnectionStateListener(l, e); }
    @Override public void removeConnectionStateListener(ConnectionStateListener l) { delegate.removeConnectionStateListener(l); }
    @Override public Set<String> watchedPaths() { return delegate.watchedPaths(); }
    @Override public void close() { delegate.close(); }
    @Override
    public CompletableFuture<Stat> existsAsync(String path, Watcher w) {
        Runnable delayed = delayedMulti.getAndSet(null);
        if (delayed == null) {
            return delegate.existsAsync(path, w);
        }
        return delegate.existsAsync(path, w).thenApplyAsync(stat -> {
            delayed.run();
            return stat;
        });
    }
    @Override public CompletableFuture<NodeData> getDataAsync(String path, Watcher w) { return delegate.getDataAsync(path, w); }
    @Override
    public CompletableFuture<Stat> setDataAsync(String path, byte[] data, int version) {
        CompletableFuture<?> gate = setDataGate.getAndSet(null);
        CompletableFuture<Stat> sent = loseIf(take(setDataToLose), delegate.setDataAsync(path, data, version), path);
        return gate == null ? sent : gate.handle((x, e) -> null).thenCompose(x -> sent);
    }
    @Override
    public CompletableFuture<Children> getChildrenAsync(String path, Watcher w) {
        CompletableFuture<Children> sent = delegate.getChildrenAsync(path, w);
        CompletableFuture<?> gate = listingGate;
        return gate == null || gate.isDone() ? sent : gate.handle((x, e) -> null).thenCompose(x -> sent);
    }
    @Override public CompletableFuture<Void> syncAsync(String path) { return delegate.syncAsync(path); }
    @Override public CompletableFuture<Void> addWatchAsync(String path, AddWatchMode mode, Watcher w) { return delegate.addWatchAsync(path, mode, w); }
    @Override public CompletableFuture<Void> addWatchAsync(String path, AddWatchMode mode, boolean withData, Watcher w) { return delegate.addWatchAsync(path, mode, withData, w); }
    @Override public CompletableFuture<Void> removeWatchesAsync(String path, Watcher w, WatcherType type, boolean local) { return delegate.removeWatchesAsync(path, w, type, local); }
}
