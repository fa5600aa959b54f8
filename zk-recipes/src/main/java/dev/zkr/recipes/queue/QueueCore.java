package dev.zkr.recipes.queue;

import dev.zkr.client.ClientSupport;
import dev.zkr.client.CreateMode;
import dev.zkr.client.Created;
import dev.zkr.client.NodeData;
import dev.zkr.client.Op;
import dev.zkr.client.OpResult;
import dev.zkr.client.Parents;
import dev.zkr.client.Stat;
import dev.zkr.client.Watcher;
import dev.zkr.client.WatcherType;
import dev.zkr.client.ZkClient;
import dev.zkr.client.ZkException;
import dev.zkr.client.ZkPaths;
import dev.zkr.recipes.internal.Cleanup;
import dev.zkr.recipes.internal.Deadline;
import dev.zkr.recipes.internal.OwnedNode;
import dev.zkr.recipes.internal.ProtectedNames;
import dev.zkr.recipes.internal.Retries;
import dev.zkr.recipes.internal.Signal;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

/**
 * The machinery of both queues. Items: {@code item-<uuid>-<seq>} (persistent-sequential, protected so a lost
 * create is found instead of duplicated). A consumer keeps a local cache of sorted item names and lists the
 * children again only when the cache runs dry; it sets a child watch only when the queue looks empty (no herd on
 * every offer while busy).
 *
 * <p>Simple mode claims by {@code multi(delete item, setData consumer-node := item name)}, so a claim whose
 * response was lost is decided by reading our own consumer node. Acknowledged mode claims by creating the
 * ephemeral {@code claim-<item>} node; {@code ack} deletes item and claim together. A claim create whose outcome is
 * unknown when the take gives up (response lost and the connection not back in time, interrupt) is "unsettled": the
 * consumer's next take tries that item again (and finds its own claim by the ephemeral owner), and once connected
 * the claim is released if no take picked it up first, so it never blocks other consumers until the session ends.
 *
 * <p>Timed takes end near their deadline with nothing, also while disconnected: every wait and read of a take is
 * bounded by the deadline, and {@link #close()} cuts the deadline short. A closed client fails waits with
 * {@link ZkException.Closed} at once.
 */
final class QueueCore {

    static final String ITEM = "item-";
    static final String CLAIM = "claim-";
    static final String CONSUMER = "consumer-";

    record Claimed(String name, byte[] data, OwnedNode claim) {
    }

    private final ZkClient client;
    private final String path;
    private final boolean acknowledged;
    /** How many of the first cached items a consumer that collided with another one picks from. */
    static final int SPREAD = 4;

    /** Cached item names in enqueue order; guarded by itself. */
    private final List<String> cache = new ArrayList<>();
    /**
     * Set when a claim of the current take lost a race to another consumer's take running at the same time (the
     * item was there when this take read it, and another consumer claimed it before this take could): the rest of
     * this take picks among the first {@link #SPREAD} items rather than always the head. Reset at the start of
     * every take, so a take that overlaps no other consumer's take always goes for the head (the oldest item).
     * Used under the take lock only.
     */
    private boolean contended;
    /**
     * The cache was filled by a listing of the current take (reset at the start of every take): an item found
     * claimed by another consumer was then claimed during this take (acknowledged mode). Under the take lock.
     */
    private boolean listedThisTake;
    private final ReentrantLock takeLock = new ReentrantLock();
    private final String consumerPath;
    private final Set<Claimed> outstanding = java.util.concurrent.ConcurrentHashMap.newKeySet();
    private volatile long consumerSession;
    private volatile Signal waiting;
    private volatile boolean closed;
    /** Fired by close: every wait of a take ends. */
    private final Signal closing = new Signal();
    /** Items whose claim create may have been applied without this consumer knowing (acknowledged mode). */
    private final Set<String> unsettled = java.util.concurrent.ConcurrentHashMap.newKeySet();

    /** A take's deadline passed (or the queue closed) while a request was outstanding: the take ends empty. */
    private static final class DeadlinePassed extends RuntimeException {
        DeadlinePassed() {
            super("deadline passed", null, false, false);
        }
    }

    /** A claim whose outcome could not be decided: the take fails with the cause instead of returning empty. */
    private static final class Undecided extends RuntimeException {
        final ZkException cause;

        Undecided(ZkException cause) {
            super(cause.getMessage(), cause, false, false);
            this.cause = cause;
        }
    }

    QueueCore(ZkClient client, String path, boolean acknowledged) {
        this.client = client;
        this.path = ZkPaths.validate(path);
        this.acknowledged = acknowledged;
        this.consumerPath = ZkPaths.join(path, CONSUMER + UUID.randomUUID());
    }

    String path() {
        return path;
    }

    // ---- offer --------------------------------------------------------------------------------------------------

    void offer(byte[] data) {
        checkOpen();
        String prefix = ITEM + UUID.randomUUID() + "-";
        String itemPath = ZkPaths.join(path, prefix);
        while (true) {
            try {
                client.create(itemPath, data, CreateMode.PERSISTENT_SEQUENTIAL, Parents.CONTAINER);
                return;
            } catch (ZkException.ConnectionLoss | ZkException.OperationTimeout | ZkException.SessionExpired e) {
                if (!Retries.recover(client, Deadline.NONE)) {
                    throw e;
                }
                boolean found = Retries.retrying(client, Deadline.NONE, () -> {
                    try {
                        return client.getChildren(path).stream().anyMatch(n -> n.startsWith(prefix));
                    } catch (ZkException.NoNode none) {
                        return false;
                    }
                });
                if (found) {
                    return;
                }
            }
        }
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
        checkOpen();
        Deadline deadline = callerDeadline.cancelledBy(closing);
        try {
            if (deadline.isBounded()) {
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
            while (true) {
                checkOpen();
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
                    if (deadline.expired() || !refill(deadline)) {
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
        }
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
    private static <T> T within(CompletableFuture<T> request, Deadline deadline) {
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
    private <T> T read(Deadline deadline, Supplier<CompletableFuture<T>> request) {
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

    /** Fills the cache from a listing; if empty, waits for a change. False if the deadline passed. */
    private boolean refill(Deadline deadline) {
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
            return signal.await(deadline) || !deadline.expired();
        } catch (ZkException.ConnectionLoss | ZkException.OperationTimeout | ZkException.SessionExpired e) {
            return Retries.recover(client, deadline);
        } finally {
            waiting = null;
            if (!fired.get()) {
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
        claimed.removeAll(unsettled); // perhaps claimed by this consumer: its next take finds out
        items.removeAll(claimed);
        return ProtectedNames.sortBySequence(items);
    }

    private Claimed claim(String name, Deadline deadline) {
        return acknowledged ? claimWithNode(name, deadline) : claimByDelete(name, deadline);
    }

    private Claimed claimByDelete(String name, Deadline deadline) {
        String itemPath = ZkPaths.join(path, name);
        byte[] marker = name.getBytes(StandardCharsets.UTF_8);
        while (true) {
            NodeData d;
            try {
                ensureConsumerNode(deadline);
                d = read(deadline, () -> client.getDataAsync(itemPath, null));
            } catch (ZkException.NoNode gone) {
                return null;
            }
            if (!Retries.awaitConnected(client, deadline)) {
                throw new DeadlinePassed(); // not sent: nothing to decide
            }
            try {
                client.multi(List.of(Op.delete(itemPath, -1), Op.setData(consumerPath, marker, -1)));
                return new Claimed(name, d.data(), null);
            } catch (ZkException.NoNode e) {
                if (failedAt(e, 0)) {
                    contended = true; // another consumer's take claimed it between this take's read and claim
                    return null;
                }
                consumerSession = 0; // our consumer node is gone (new session): make it again
            } catch (ZkException.ConnectionLoss | ZkException.OperationTimeout e) {
                // the claim may have taken the item: decide it even past the caller's deadline, or the item is
                // lost with the exception. Bounded: within the session timeout the client is back, or its session
                // (and the consumer node with it) is gone and the claim is undecidable anyway.
                Deadline decide = decisionDeadline(deadline);
                try {
                    if (!Retries.recover(client, decide)) {
                        throw new Undecided(e);
                    }
                    NodeData mine = Retries.retrying(client, decide, () -> client.getData(consumerPath));
                    if (Arrays.equals(mine.data(), marker)) {
                        return new Claimed(name, d.data(), null); // our claim was applied
                    }
                } catch (ZkException.NoNode sessionGone) {
                    consumerSession = 0; // undecidable: the item is either still there (retried) or lost
                } catch (ZkException.ConnectionLoss | ZkException.OperationTimeout | ZkException.SessionExpired x) {
                    throw new Undecided(x);
                }
                // not applied: if the item is still there, try again; getData tells
            } catch (ZkException.SessionExpired e) {
                consumerSession = 0;
                Retries.awaitConnected(client, deadline);
            }
        }
    }

    /** The caller's deadline, or twice the session timeout from now if that is later. */
    private Deadline decisionDeadline(Deadline deadline) {
        Duration bound = client.sessionTimeout().multipliedBy(2);
        return deadline.remainingNanos() >= bound.toNanos() ? deadline : Deadline.after(bound); // close cannot cut it
    }

    private static boolean failedAt(ZkException e, int index) {
        List<OpResult> results = e.multiResults();
        if (results == null || results.size() <= index) {
            return index == 0;
        }
        return results.get(index) instanceof OpResult.ErrorResult err && err.code() != ZkException.Code.OK
                && err.code() != ZkException.Code.RUNTIME_INCONSISTENCY;
    }

    private void ensureConsumerNode(Deadline deadline) {
        long session = client.sessionId();
        if (consumerSession == session) {
            return;
        }
        Retries.retrying(client, deadline, () -> {
            try {
                within(client.createAsync(consumerPath, new byte[0], CreateMode.EPHEMERAL, Parents.CONTAINER),
                        deadline);
            } catch (ZkException.NodeExists e) {
                // ours, from a create whose response was lost (or that a take before this one gave up on)
            }
        });
        consumerSession = session;
    }

    private Claimed claimWithNode(String name, Deadline deadline) {
        String itemPath = ZkPaths.join(path, name);
        String claimPath = ZkPaths.join(path, CLAIM + name);
        // true while a create of this claim may have been applied unseen: an own claim found is then this take's
        boolean uncertain = unsettled.remove(name);
        OwnedNode claim = null;
        try {
            while (claim == null) {
                try {
                    // no parent creation: the item's parent exists, and one request keeps the order with the
                    // exists() that settles an abandoned create
                    CompletableFuture<Created> create = client.createAsync(claimPath, new byte[0], CreateMode.EPHEMERAL);
                    Stat stat;
                    try {
                        stat = within(create, deadline).stat();
                    } catch (ZkException.NodeExists | ZkException.NoNode | ZkException.SessionExpired e) {
                        throw e;
                    } catch (RuntimeException e) {
                        uncertain = true; // response lost, or no longer waited for: the create may be applied
                        throw e;
                    }
                    claim = new OwnedNode(claimPath, CLAIM + name, stat.czxid(), stat.ephemeralOwner());
                } catch (ZkException.NoNode e) {
                    return null; // the queue node is gone, and the item with it
                } catch (ZkException.NodeExists e) {
                    Stat stat = read(deadline, () -> client.existsAsync(claimPath, null));
                    if (stat == null || stat.ephemeralOwner() != client.sessionId()) {
                        uncertain = false; // a create of ours came first, or was never applied (requests in order)
                        // a race only if this take saw the item unclaimed; a claim seen first through a listing of
                        // an earlier take may be held since then by a take that overlapped nothing of this one
                        contended = stat != null && listedThisTake || contended;
                        return null; // claimed by another consumer (or just released: seen at the next listing)
                    }
                    if (!uncertain) {
                        return null; // ours, but not this take's: held, or being released
                    }
                    claim = new OwnedNode(claimPath, CLAIM + name, stat.czxid(), stat.ephemeralOwner());
                } catch (ZkException.ConnectionLoss | ZkException.OperationTimeout e) {
                    if (!Retries.recover(client, deadline)) {
                        throw e;
                    }
                } catch (ZkException.SessionExpired e) {
                    uncertain = false; // the session's ephemerals are gone with it
                    if (!Retries.awaitConnected(client, deadline)) {
                        throw e;
                    }
                }
            }
        } catch (RuntimeException e) {
            if (uncertain) {
                unsettle(name, claimPath);
            }
            throw e;
        }
        try {
            NodeData d = read(deadline, () -> client.getDataAsync(itemPath, null));
            Claimed c = new Claimed(name, d.data(), claim);
            outstanding.add(c);
            return c;
        } catch (ZkException.NoNode gone) {
            Cleanup.deleteQuietly(client, claimPath, claim.owner()); // acknowledged by someone before us
            return null;
        } catch (RuntimeException e) {
            Cleanup.deleteQuietly(client, claimPath, claim.owner());
            throw e;
        }
    }

    /**
     * A claim create of this session whose outcome is unknown: the next take of this consumer may pick the item up
     * (it is not filtered out); otherwise, once connected, the claim is looked up and released if it is ours.
     */
    private void unsettle(String name, String claimPath) {
        long owner = client.sessionId();
        unsettled.add(name);
        settle(name, claimPath, owner, 20);
    }

    private void settle(String name, String claimPath, long owner, int attempts) {
        Retries.whenConnected(client).thenCompose(x -> {
            if (!unsettled.contains(name)) {
                return CompletableFuture.completedFuture(null); // a take picked it up
            }
            if (client.sessionId() != owner) {
                unsettled.remove(name); // the session and its ephemerals are gone
                return CompletableFuture.completedFuture(null);
            }
            return client.existsAsync(claimPath, null).thenCompose(stat -> {
                boolean ours = stat != null && stat.ephemeralOwner() == owner;
                if (!unsettled.remove(name) || !ours) {
                    return CompletableFuture.completedFuture(null); // taken over by a take, or nothing to release
                }
                return client.deleteAsync(claimPath, stat.version()).exceptionallyCompose(err -> {
                    unsettled.add(name); // not known to be deleted: look again
                    return CompletableFuture.failedFuture(err);
                });
            });
        }).whenComplete((v, err) -> {
            if (err == null) {
                return;
            }
            RuntimeException cause = ClientSupport.unwrap(err);
            if ((cause instanceof ZkException.ConnectionLoss || cause instanceof ZkException.OperationTimeout)
                    && attempts > 1) {
                settle(name, claimPath, owner, attempts - 1);
            } else {
                unsettled.remove(name); // Closed, SessionExpired, NoNode: nothing of ours is left
            }
        });
    }

    // ---- acknowledged mode ----------------------------------------------------------------------------------------

    /** Deletes the item and its claim together; false if the claim is no longer ours. */
    boolean ack(Claimed c) {
        try {
            return ackOnce(c);
        } catch (ZkException.Closed e) {
            outstanding.remove(c);
            return false; // the claim went with the closed client's session
        }
    }

    private boolean ackOnce(Claimed c) {
        String itemPath = ZkPaths.join(path, c.name());
        while (true) {
            if (client.sessionId() != c.claim().owner()) {
                outstanding.remove(c);
                return false;
            }
            try {
                client.multi(List.of(Op.delete(c.claim().path(), -1), Op.delete(itemPath, -1)));
                outstanding.remove(c);
                return true;
            } catch (ZkException.NoNode e) {
                outstanding.remove(c);
                return false;
            } catch (ZkException.ConnectionLoss | ZkException.OperationTimeout e) {
                if (!Retries.recover(client, Deadline.NONE)) {
                    throw e;
                }
                Stat claim = Retries.retrying(client, Deadline.NONE, () -> client.exists(c.claim().path()));
                if (claim == null) {
                    outstanding.remove(c);
                    // gone: our multi was applied, or our session expired (then ack is false above next loop)
                    return client.sessionId() == c.claim().owner();
                }
            } catch (ZkException.SessionExpired e) {
                outstanding.remove(c);
                return false;
            }
        }
    }

    void release(Claimed c) {
        outstanding.remove(c);
        Cleanup.deleteQuietly(client, c.claim().path(), c.claim().owner());
        synchronized (cache) {
            cache.add(0, c.name()); // this consumer sees it again first
        }
    }

    // ---- lifecycle ------------------------------------------------------------------------------------------------

    private void checkOpen() {
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
        for (Claimed c : List.copyOf(outstanding)) {
            release(c);
        }
        // wait (bounded) for a take in progress to clean up its watch: its waits end at once now
        boolean locked = false;
        try {
            locked = takeLock.tryLock(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try {
            Cleanup.deleteQuietly(client, consumerPath, consumerSession);
        } finally {
            if (locked) {
                takeLock.unlock();
            }
        }
    }
}
