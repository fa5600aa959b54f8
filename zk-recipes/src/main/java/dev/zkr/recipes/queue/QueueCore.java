package dev.zkr.recipes.queue;

import dev.zkr.client.ClientSupport;
import dev.zkr.client.CreateMode;
import dev.zkr.client.Op;
import dev.zkr.client.Watcher;
import dev.zkr.client.WatcherType;
import dev.zkr.client.ZkClient;
import dev.zkr.client.ZkException;
import dev.zkr.client.ZkPaths;
import dev.zkr.recipes.internal.Cleanup;
import dev.zkr.recipes.internal.Deadline;
import dev.zkr.recipes.internal.OwnedNode;
import dev.zkr.recipes.internal.Retries;
import dev.zkr.recipes.internal.Signal;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

/**
 * The machinery both queues share. Items: {@code item-<uuid>-<seq>} (persistent-sequential), offered exactly once
 * (a plain create with exactly-once writes, else through the producer's ledger node: {@link ExactlyOnceOffer}). A consumer keeps a local cache of sorted item names and lists the
 * children again only when the cache runs dry; it sets a child watch only when the queue looks empty (no herd on
 * every offer while busy). How an item is claimed is the subclass's: {@link DeleteClaimCore} (simple queue: the
 * claim removes the item) or {@link NodeClaimCore} (acknowledged queue: the claim is an ephemeral node).
 *
 * <p>Timed takes end near their deadline with nothing, also while disconnected: every wait and read of a take is
 * bounded by the deadline, and {@link #close()} cuts the deadline short. A closed client fails waits with
 * {@link ZkException.Closed} at once.
 */
abstract class QueueCore {

    static final String ITEM = "item-";
    static final String CLAIM = "claim-";

    record Claimed(String name, byte[] data, OwnedNode claim) {
    }

    /** A take that would have had to wait for the take lock (an asynchronous take waits for {@link #nextUnlock}). */
    static final Claimed BUSY = new Claimed("", new byte[0], null);

    /**
     * What an asynchronous take waits for when the queue has nothing for it: the child (or exists) watch its last
     * listing left, and for a delay queue how long until the earliest item is due (-1: none is waiting).
     */
    static final class Wake {
        Signal signal;
        Watcher watcher;
        WatcherType type;
        long dueInMillis = -1;
    }

    final ZkClient client;
    final String path;
    final ItemOrder order;
    /** How many of the first cached items a consumer that collided with another one picks from. */
    static final int SPREAD = 4;

    /** Cached item names in enqueue order; guarded by itself. */
    final List<String> cache = new ArrayList<>();
    /**
     * Set when a claim of the current take lost a race to another consumer's take running at the same time (the
     * item was there when this take read it, and another consumer claimed it before this take could): the rest of
     * this take picks among the first {@link #SPREAD} items rather than always the head. Reset at the start of
     * every take, so a take that overlaps no other consumer's take always goes for the head (the oldest item).
     * Used under the take lock only.
     */
    boolean contended;
    /**
     * The cache was filled by a listing of the current take (reset at the start of every take): an item found
     * claimed by another consumer was then claimed during this take (acknowledged mode). Under the take lock.
     */
    boolean listedThisTake;
    private final ReentrantLock takeLock = new ReentrantLock();
    private final ExactlyOnceOffer offers;
    private volatile Signal waiting;
    private volatile boolean closed;
    /** Completed (and replaced) whenever a take gives up the take lock. */
    private volatile CompletableFuture<Void> unlocked = new CompletableFuture<>();
    /** The asynchronous takes in progress, with how to make each look again: close fails them. */
    private final java.util.Map<CompletableFuture<?>, Runnable> asyncTakes =
            new java.util.concurrent.ConcurrentHashMap<>();
    /** Items claimed for an asynchronous take that was cancelled meanwhile: the next take delivers them first. */
    private final java.util.ArrayDeque<Claimed> givenBack = new java.util.ArrayDeque<>();
    /**
     * Delay queues: the latest server time seen (the mtime of this consumer's writes to the queue node), in epoch
     * ms. An item due at or before it is due (the server's clock reached its time). Under the take lock.
     */
    private long serverNow;
    /** Delay queues: ms from {@link #serverNow} until the earliest item not yet due, -1 if none. Under the take lock. */
    private long nextDueIn = -1;
    /** Fired by close: every wait of a take ends. */
    private final Signal closing = new Signal();

    /** A take's deadline passed (or the queue closed) while a request was outstanding: the take ends empty. */
    static final class DeadlinePassed extends RuntimeException {
        DeadlinePassed() {
            super("deadline passed", null, false, false);
        }
    }

    /** A claim whose outcome could not be decided: the take fails with the cause instead of returning empty. */
    static final class Undecided extends RuntimeException {
        final ZkException cause;

        Undecided(ZkException cause) {
            super(cause.getMessage(), cause, false, false);
            this.cause = cause;
        }
    }

    QueueCore(ZkClient client, String path, ItemOrder order) {
        this.client = client;
        this.path = ZkPaths.validate(path);
        this.order = order;
        this.offers = new ExactlyOnceOffer(client, this.path);
    }

    String path() {
        return path;
    }

    // ---- offer --------------------------------------------------------------------------------------------------

    /**
     * Enqueues an item as {@code item-<uuid>-<seq>} exactly once, also after a lost response; ConnectionLoss if
     * the outcome cannot be known ({@link ExactlyOnceOffer}).
     */
    void offer(byte[] data, String key) {
        checkOpen();
        offers.offer(data, key);
    }

    /**
     * The server's time now (epoch ms): the mtime of a write to the queue node (made as a container if missing),
     * retried after a lost connection (a repeated write is harmless).
     */
    long serverNow(Deadline deadline) {
        return Retries.retrying(client, deadline, () -> {
            while (true) {
                try {
                    return within(client.setDataAsync(path, new byte[0], -1), deadline).mtime();
                } catch (ZkException.NoNode e) {
                    within(ClientSupport.ensurePath(client, path, CreateMode.CONTAINER), deadline);
                }
            }
        });
    }

    /**
     * Removes the items of an id queue whose key is {@code idKey}, unless a consumer holds them; returns how many
     * this call removed. Each is one request: a delete (the simple queue's claim is a delete too, so the item goes
     * to the consumer or here, never both) or, for the acknowledged queue, {@link #removeOps} with its claim.
     */
    int remove(String idKey) {
        checkOpen();
        int removed = 0;
        while (true) {
            List<String> names;
            try {
                names = Retries.retrying(client, Deadline.NONE, () -> client.getChildren(path));
            } catch (ZkException.NoNode e) {
                return removed;
            }
            Set<String> children = new HashSet<>(names);
            boolean lost = false;
            for (String n : names) {
                if (!n.startsWith(ITEM) || !order.hasId(n, idKey) || children.contains(CLAIM + n)) {
                    continue;
                }
                try {
                    client.multi(removeOps(n));
                    removed++;
                } catch (ZkException.NoNode | ZkException.NodeExists e) {
                    // taken (or claimed) meanwhile
                } catch (ZkException.ConnectionLoss | ZkException.OperationTimeout | ZkException.SessionExpired e) {
                    lost = true; // applied or not: list again (a removed item is not listed; this one not counted)
                    Retries.recover(client, Deadline.NONE);
                    break;
                }
            }
            if (!lost) {
                return removed;
            }
        }
    }

    /** The ops that remove an unclaimed item: its delete. */
    List<Op> removeOps(String name) {
        return List.of(Op.delete(ZkPaths.join(path, name), -1));
    }

    int size() {
        try {
            return (int) client.getChildren(path).stream().filter(n -> n.startsWith(ITEM)).count();
        } catch (ZkException.NoNode e) {
            return 0;
        }
    }

    // ---- take ---------------------------------------------------------------------------------------------------

    /** Claims the next item; null if the deadline passed (also while disconnected). */
    Claimed take(Deadline callerDeadline) {
        return take(callerDeadline, null);
    }

    /**
     * As {@link #take(Deadline)}; with a {@code wake}, for an asynchronous take: never waits for the take lock
     * ({@link #BUSY} if another take holds it) nor for an item (null, with the watch to wait on in {@code wake}).
     */
    Claimed take(Deadline callerDeadline, Wake wake) {
        checkOpen();
        // an asynchronous take's deadline is cut short by its own signal, which close fires too
        Deadline deadline = callerDeadline.cancel() != null ? callerDeadline : callerDeadline.cancelledBy(closing);
        try {
            if (wake != null) {
                if (!takeLock.tryLock()) {
                    return BUSY;
                }
            } else if (deadline.isBounded()) {
                if (!takeLock.tryLock(deadline.remainingNanos(), TimeUnit.NANOSECONDS)) {
                    return empty();
                }
            } else {
                takeLock.lockInterruptibly();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ZkException.Interrupted(path, "interrupted while waiting for the queue");
        }
        contended = false; // contention is a property of one take: the racing takes overlap it
        listedThisTake = false;
        try {
            if (order.sortsByKey()) {
                synchronized (cache) {
                    cache.clear(); // ordered by key: an item offered since the last listing may come first
                }
            }
            while (true) {
                checkOpen();
                Claimed back;
                synchronized (givenBack) {
                    back = givenBack.poll();
                }
                if (back != null) {
                    return back;
                }
                try {
                    if (!Retries.awaitConnected(client, deadline)) {
                        return empty();
                    }
                    String name;
                    while ((name = nextCandidate()) != null) {
                        Claimed c = claim(name, deadline);
                        if (c != null) {
                            return c;
                        }
                    }
                    if (deadline.expired() || !refill(deadline, wake)) {
                        return empty();
                    }
                } catch (DeadlinePassed e) {
                    return empty();
                } catch (Undecided e) {
                    throw e.cause;
                } catch (ZkException.ConnectionLoss | ZkException.OperationTimeout | ZkException.SessionExpired e) {
                    if (deadline.expired()) {
                        return empty(); // the wait ran out while disconnected
                    }
                    throw e;
                }
            }
        } finally {
            takeLock.unlock();
            CompletableFuture<Void> u = unlocked;
            unlocked = new CompletableFuture<>();
            u.complete(null);
        }
    }

    /** Completed when a take next gives up the take lock. */
    CompletableFuture<Void> nextUnlock() {
        return unlocked;
    }

    /** Null: a take ends empty-handed (or fails with IllegalStateException if the queue was closed meanwhile). */
    private Claimed empty() {
        checkOpen();
        return null;
    }

    /**
     * Waits for a take's request at most until the deadline (or the queue's close); past it {@link DeadlinePassed}
     * (the request goes on; its outcome is ignored). A native client keeps requests while disconnected.
     */
    static <T> T within(CompletableFuture<T> request, Deadline deadline) {
        Signal cancel = deadline.cancel();
        CompletableFuture<?> wake = cancel == null ? request : CompletableFuture.anyOf(request, cancel.future());
        try {
            if (deadline.isBounded()) {
                wake.get(deadline.remainingNanos(), TimeUnit.NANOSECONDS);
            } else {
                wake.get();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ZkException.Interrupted(null, "interrupted while waiting for a response");
        } catch (ExecutionException | TimeoutException e) {
            // the request failed (thrown below) or is still outstanding
        }
        if (request.isDone()) {
            return ClientSupport.await(request);
        }
        throw new DeadlinePassed();
    }

    /** A read of a take, retried after ConnectionLoss while the deadline allows. */
    <T> T read(Deadline deadline, Supplier<CompletableFuture<T>> request) {
        return Retries.retrying(client, deadline, () -> within(request.get(), deadline));
    }

    /** As {@link #within}; a watch that an abandoned read registers later is removed then. */
    private <T> T watchedRead(CompletableFuture<T> read, Deadline deadline, Watcher watcher, WatcherType type) {
        try {
            return within(read, deadline);
        } catch (DeadlinePassed | ZkException.Interrupted e) {
            read.whenComplete((value, error) -> {
                if (error == null) {
                    client.removeWatchesAsync(path, watcher, type, true).exceptionally(x -> null);
                }
            });
            throw e;
        }
    }

    /**
     * The next cached item to try: the head, or, after a lost race with another consumer, one of the first
     * {@link #SPREAD} at random (so concurrent consumers stop colliding on the head); null if the cache is dry.
     */
    private String nextCandidate() {
        synchronized (cache) {
            if (cache.isEmpty()) {
                return null;
            }
            int i = contended ? java.util.concurrent.ThreadLocalRandom.current().nextInt(
                    Math.min(SPREAD, cache.size())) : 0;
            return cache.remove(i);
        }
    }

    private void cacheAll(List<String> items) {
        synchronized (cache) {
            cache.addAll(items);
        }
        listedThisTake = true; // only refill calls this, under the take lock
    }

    /**
     * Fills the cache from a listing; if empty, waits for a change (or, in a delay queue, until the earliest item
     * is due). False if the deadline passed. With a {@code wake} it does not wait: it returns false and leaves the
     * watch (and the time until the next due item) in the wake.
     */
    private boolean refill(Deadline deadline, Wake wake) {
        List<String> items = Retries.retrying(client, deadline, () -> candidates(null, deadline));
        if (!items.isEmpty()) {
            cacheAll(items);
            return true;
        }
        Signal signal = new Signal();
        AtomicBoolean fired = new AtomicBoolean();
        Watcher watcher = e -> {
            fired.set(true);
            signal.fire();
        };
        waiting = signal;
        boolean childWatch = true;
        try {
            if (hasGivenBack()) {
                return true; // given back before this take could be woken for it: take it
            }
            try {
                items = candidates(watcher, deadline);
            } catch (ZkException.NoNode e) {
                childWatch = false;
                if (watchedRead(client.existsAsync(path, watcher), deadline, watcher, WatcherType.DATA) != null) {
                    return true; // it came back: list again (the exists watch is removed below)
                }
                items = List.of();
            }
            if (!items.isEmpty()) {
                cacheAll(items);
                return true;
            }
            if (closed) {
                return true; // checkOpen throws
            }
            if (wake != null) {
                wake.signal = signal;
                wake.watcher = watcher;
                wake.type = childWatch ? WatcherType.CHILDREN : WatcherType.DATA;
                wake.dueInMillis = nextDueIn;
                return false;
            }
            Deadline until = deadline;
            if (nextDueIn >= 0 && nextDueIn < TimeUnit.NANOSECONDS.toMillis(deadline.remainingNanos())) {
                until = Deadline.after(java.time.Duration.ofMillis(nextDueIn)).cancelledBy(deadline.cancel());
            }
            return signal.await(until) || !deadline.expired();
        } catch (ZkException.ConnectionLoss | ZkException.OperationTimeout | ZkException.SessionExpired e) {
            return Retries.recover(client, deadline);
        } finally {
            waiting = null;
            if (!fired.get() && (wake == null || wake.signal == null)) {
                Cleanup.removeWatchQuietly(client, path, watcher,
                        childWatch ? WatcherType.CHILDREN : WatcherType.DATA);
            }
        }
    }

    /** Unclaimed item names, in enqueue order; NoNode if the queue node does not exist (with a watcher). */
    private List<String> candidates(Watcher watcher, Deadline deadline) {
        List<String> names;
        if (watcher == null) {
            try {
                names = within(client.getChildrenAsync(path, null), deadline).names();
            } catch (ZkException.NoNode e) {
                return List.of();
            }
        } else {
            names = watchedRead(client.getChildrenAsync(path, watcher), deadline, watcher, WatcherType.CHILDREN)
                    .names();
        }
        Set<String> claimed = new HashSet<>();
        List<String> items = new ArrayList<>();
        for (String n : names) {
            if (n.startsWith(ITEM)) {
                items.add(n);
            } else if (n.startsWith(CLAIM)) {
                claimed.add(n.substring(CLAIM.length()));
            }
        }
        claimed.removeAll(possiblyOwnClaims()); // perhaps claimed by this consumer: its next take finds out
        items.removeAll(claimed);
        List<String> sorted = order.sort(items);
        return order == ItemOrder.DELAY ? due(sorted, deadline) : sorted;
    }

    /**
     * The items (sorted by due time) whose time has come on the server's clock; sets {@link #nextDueIn}. Asks the
     * server for its time (a write to the queue node, after the listing) only if an item is due later than the
     * latest server time seen: never the consumer's clock.
     */
    private List<String> due(List<String> sorted, Deadline deadline) {
        nextDueIn = -1;
        if (sorted.isEmpty()) {
            return sorted;
        }
        if (order.dueOf(sorted.get(sorted.size() - 1)) > serverNow) {
            serverNow = Math.max(serverNow, serverNow(deadline));
        }
        int ready = 0;
        while (ready < sorted.size() && order.dueOf(sorted.get(ready)) <= serverNow) {
            ready++;
        }
        if (ready < sorted.size()) {
            nextDueIn = order.dueOf(sorted.get(ready)) - serverNow;
        }
        return sorted.subList(0, ready);
    }

    /** Claims the named item for this take; null if it is gone or another consumer has it. */
    abstract Claimed claim(String name, Deadline deadline);

    /** Items whose claim this consumer may hold without knowing it: they stay candidates. None by default. */
    Set<String> possiblyOwnClaims() {
        return Set.of();
    }

    /** At close, before waiting for a take in progress: give back what this consumer holds. Nothing by default. */
    void releaseHeld() {
    }

    /** At close, once takes have ended (or after a bounded wait): remove this consumer's own nodes. */
    void removeConsumer() {
    }

    // ---- lifecycle ------------------------------------------------------------------------------------------------

    /** Registers an asynchronous take (close fails it); it deregisters itself when complete. */
    void registerAsync(CompletableFuture<?> take, Runnable lookAgain) {
        asyncTakes.put(take, lookAgain);
        take.whenComplete((v, e) -> asyncTakes.remove(take));
        if (closed) {
            take.completeExceptionally(new IllegalStateException("queue " + path + " is closed"));
        }
    }

    boolean isClosed() {
        return closed;
    }

    /**
     * An item claimed for an asynchronous take that was cancelled before it could be handed over. By default (the
     * simple queue: the claim removed it) the next take of this consumer gets it first, and close offers it again.
     */
    void giveBack(Claimed c) {
        synchronized (givenBack) {
            givenBack.addFirst(c);
        }
        if (closed) {
            reofferGivenBack(); // given back after close looked (each item is polled once: never offered twice)
            return;
        }
        Signal s = waiting;
        if (s != null) {
            s.fire(); // a blocking take waiting for items: it takes this one
        }
        asyncTakes.values().forEach(Runnable::run); // and the asynchronous ones look again
    }

    private boolean hasGivenBack() {
        synchronized (givenBack) {
            return !givenBack.isEmpty();
        }
    }

    private void reofferGivenBack() {
        while (true) {
            Claimed c;
            synchronized (givenBack) {
                c = givenBack.poll();
            }
            if (c == null) {
                return;
            }
            try {
                String key = ItemOrder.keyOf(c.name());
                offers.offer(c.data(), key == null ? "" : key);
            } catch (RuntimeException e) {
                // lost, as an item taken by a consumer that dies is (at-most-once)
            }
        }
    }

    void checkOpen() {
        if (closed) {
            throw new IllegalStateException("queue " + path + " is closed");
        }
    }

    void close() {
        if (closed) {
            return;
        }
        closed = true;
        closing.fire();
        Signal s = waiting;
        if (s != null) {
            s.fire();
        }
        releaseHeld();
        for (CompletableFuture<?> f : List.copyOf(asyncTakes.keySet())) {
            f.completeExceptionally(new IllegalStateException("queue " + path + " is closed"));
        }
        // wait (bounded) for a take in progress to clean up its watch: its waits end at once now
        boolean locked = false;
        try {
            locked = takeLock.tryLock(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try {
            reofferGivenBack();
            removeConsumer();
            offers.close();
        } finally {
            if (locked) {
                takeLock.unlock();
            }
        }
    }
}
