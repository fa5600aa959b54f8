package dev.zkr.recipes;

import dev.zkr.client.ClientSupport;
import dev.zkr.client.ConnectionState;
import dev.zkr.client.ConnectionStateListener;
import dev.zkr.client.CreateMode;
import dev.zkr.client.Created;
import dev.zkr.client.Parents;
import dev.zkr.client.WatchedEvent;
import dev.zkr.client.Watcher;
import dev.zkr.client.WatcherType;
import dev.zkr.client.ZkClient;
import dev.zkr.client.ZkException;
import dev.zkr.client.ZkPaths;
import dev.zkr.recipes.internal.Cleanup;
import dev.zkr.recipes.internal.OwnedNode;
import dev.zkr.recipes.internal.ProtectedNames;
import dev.zkr.recipes.internal.Retries;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.BooleanSupplier;

/**
 * One acquire of a {@link SequentialNodeQueue} that holds no thread while it waits: the same steps as the blocking
 * {@link SequentialNodeQueue#acquire} (a protected ephemeral-sequential node, the listing pipelined behind its
 * create, a data watch on the one node to wait for, the decision on the cached listing when that node goes, a new
 * listing otherwise), each sent from the callback of the one before, on the client's event thread. For every
 * predicate: the semaphore's first waiter lists with a child watch instead, and a holder of the semaphore marks its
 * node as the blocking call does.
 *
 * <p><b>Many waiters of one path through one client</b> share their listings and what they know of holders
 * ({@link PathWaiters}): a waiter that needs a listing (its create is sent, or the node it watched went without
 * settling it) joins the next listing of the path <em>sent after</em> that moment ({@link ListingBatch}; the one
 * in flight may predate its node), and one reply, sorted once, serves every waiter that joined it. Listing once
 * per waiter instead made n waiters cost n listings of up to n names (2.5 GB of replies for 10,000 through one
 * session). <b>Watches:</b> one data watch per waiter, on its predecessor, not a child watch on the path. A child
 * watch fires on every create and delete under the path (each queued node, each handoff) and says nothing of what
 * changed, so every event would cost a listing of the whole queue and wake (or at least concern) every waiter: a
 * listing of n names per handoff, quadratic again. The predecessor's watch wakes the one waiter whose turn may
 * have come, and nobody else. When that predecessor held exclusively through this client, the successor holds at
 * once, with no listing (everything before a holder was gone for good, see {@link PathWaiters}): a queue of n
 * waiters through one client is passed on with no listing at all, one delete and one watch event per handoff.
 * Otherwise (a cancelled predecessor, one of another client's, a forgotten name) it joins the next listing, where
 * it finds its new predecessor and watches it: FIFO by sequence, as before.
 *
 * <p>Failure semantics are the blocking call's: after a lost connection it goes on once connected (a create whose
 * response was lost is looked for by its UUID, after a sync, before creating again); after session expiry it queues
 * again with the new session; a closed client fails the future with {@link ZkException.Closed}. Completing the
 * future in any other way than holding (cancel, timeout) deletes the node (also one whose create is still on its
 * way) and removes the watch. The future is completed on the recipes' executor, never on the event thread.
 *
 * <p>Steps are serialized by {@code this}; each chain of callbacks carries the epoch it started in, and a chain
 * whose epoch is no longer current (a connection event started a new one) stops at its next step.
 */
final class AsyncAcquire {

    /**
     * Told, for the mutex, each time the waiter right behind the first node has read that node's data and set its
     * watch (the leased lock judges the holder's lease from it). {@code current} is true while that watch is the
     * acquire's current one (no change seen since, not completed).
     */
    interface HolderWatch {
        void watching(OwnedNode ours, String holderPath, dev.zkr.client.Stat holderStat, BooleanSupplier current);
    }

    private final ZkClient client;
    private final SequentialNodeQueue queue;
    private final byte[] data;
    private final Executor executor;
    private final HolderWatch holderWatch; // null but for the leased lock
    private final PathWaiters waiters; // shared with the other waiters of this path through this client
    private final String prefix = ProtectedNames.newPrefix();
    private final CompletableFuture<OwnedNode> result = new CompletableFuture<>();
    private final ConnectionStateListener onConnection = this::connectionChanged;
    // guarded by this
    private long epoch;
    private OwnedNode ours;
    private boolean createLost; // a create of ours may have been applied without our hearing of it
    private boolean holding;
    private boolean creating; // a create is on its way: its callback carries the chain on
    private String watchedPath;
    private Watcher watcher;
    private WatcherType watchType = WatcherType.DATA;

    private AsyncAcquire(ZkClient client, SequentialNodeQueue queue, byte[] data, Executor executor,
                         HolderWatch holderWatch) {
        this.client = client;
        this.queue = queue;
        this.data = data;
        this.executor = executor;
        this.holderWatch = holderWatch;
        this.waiters = PathWaiters.join(client, queue.path());
    }

    /** Starts an acquire; the future completes with the held node (on the executor), or fails. Cancel it to give up. */
    static CompletableFuture<OwnedNode> start(ZkClient client, SequentialNodeQueue queue, byte[] data,
                                              Executor executor) {
        return start(client, queue, data, executor, null);
    }

    /** As {@link #start(ZkClient, SequentialNodeQueue, byte[], Executor)}, telling {@code holderWatch} (mutex only). */
    static CompletableFuture<OwnedNode> start(ZkClient client, SequentialNodeQueue queue, byte[] data,
                                              Executor executor, HolderWatch holderWatch) {
        AsyncAcquire a = new AsyncAcquire(client, queue, data, executor, holderWatch);
        client.addConnectionStateListener(a.onConnection);
        a.result.whenComplete((node, err) -> a.finished(err));
        a.next();
        return a.result;
    }

    /** Starts a new chain: create (or find) our node if we have none for this session, else list. */
    private synchronized void next() {
        if (result.isDone() || holding || creating) {
            return;
        }
        long e = ++epoch;
        if (client.isClosed()) {
            fail(new ZkException.Closed(queue.path(), "the client is closed"));
            return;
        }
        if (!client.state().isConnected()) {
            Retries.whenConnected(client).thenRun(this::next);
            return;
        }
        if (ours != null && ours.owner() != client.sessionId()) {
            ours = null; // its session expired: the node went with it
            createLost = false;
        }
        if (ours != null) {
            list(e, null);
        } else if (createLost) {
            findLost(e);
        } else {
            create(e);
        }
    }

    private void create(long e) {
        CompletableFuture<Created> created;
        CompletableFuture<SortedListing> listing;
        try {
            created = client.createAsync(ZkPaths.join(queue.path(), prefix + queue.base()), data,
                    CreateMode.EPHEMERAL_SEQUENTIAL, Parents.CONTAINER);
            listing = waiters.listings().join(); // a listing sent after the create: it sees our node
        } catch (RuntimeException err) {
            failed(e, err, true);
            return;
        }
        creating = true;
        created.whenComplete((c, err) -> {
            synchronized (this) {
                creating = false;
                if (err != null) {
                    RuntimeException cause = ClientSupport.unwrap(err);
                    if (cause instanceof ZkException.ConnectionLoss || cause instanceof ZkException.OperationTimeout) {
                        createLost = true; // whichever chain is current: the node may exist
                    }
                    if (!result.isDone()) {
                        failed(e, err, true);
                    }
                    return;
                }
                OwnedNode node = new OwnedNode(c.path(), ZkPaths.name(c.path()), c.stat().czxid(),
                        c.stat().ephemeralOwner());
                if (result.isDone()) {
                    Cleanup.deleteAsync(client, node.path(), node.owner()); // given up while it was on its way
                    return;
                }
                ours = node;
                createLost = false;
                if (e == epoch) {
                    list(e, listing);
                } else {
                    next(); // a connection event meanwhile: list afresh
                }
            }
        });
    }

    /** After a lost create response: sync, then look for our node by its UUID; create again if it is not there. */
    private void findLost(long e) {
        client.syncAsync(queue.path())
                .handle((v, err) -> null)
                .thenCompose(x -> client.getChildrenAsync(queue.path(), null))
                .whenComplete((children, err) -> {
                    synchronized (this) {
                        if (e != epoch || result.isDone()) {
                            return;
                        }
                        if (err != null && !(ClientSupport.unwrap(err) instanceof ZkException.NoNode)) {
                            failed(e, err, false);
                            return;
                        }
                        String found = null;
                        for (String name : children == null ? List.<String>of() : children.names()) {
                            if (name.startsWith(prefix)) {
                                found = name;
                            }
                        }
                        if (found == null) {
                            createLost = false;
                            create(e);
                            return;
                        }
                        adoptFound(e, ZkPaths.join(queue.path(), found));
                    }
                });
    }

    private void adoptFound(long e, String path) {
        client.existsAsync(path, null).whenComplete((stat, err) -> {
            synchronized (this) {
                if (e != epoch || result.isDone()) {
                    return;
                }
                if (err != null) {
                    failed(e, err, false);
                    return;
                }
                createLost = false;
                if (stat != null && stat.ephemeralOwner() == client.sessionId()) {
                    ours = new OwnedNode(path, ZkPaths.name(path), stat.czxid(), stat.ephemeralOwner());
                    list(e, null);
                } else {
                    create(e); // gone, or a node of an expired session (it goes with it)
                }
            }
        });
    }

    /**
     * Joins the next shared listing of the path (or uses the one joined when our create was sent) and decides:
     * many waiters of this client on this path are served by one listing ({@link ListingBatch}).
     */
    private void list(long e, CompletableFuture<SortedListing> sent) {
        CompletableFuture<SortedListing> listing = sent != null ? sent : waiters.listings().join();
        listing.whenComplete((children, err) -> {
            synchronized (this) {
                if (e != epoch || result.isDone()) {
                    return;
                }
                if (err != null) {
                    if (ClientSupport.unwrap(err) instanceof ZkException.NoNode && sent != null) {
                        list(e, null); // the pipelined listing ran before the create made the parent
                    } else if (ClientSupport.unwrap(err) instanceof ZkException.NoNode) {
                        ours = null; // no parent, so no node of ours: queue again
                        next();
                    } else {
                        failed(e, err, false);
                    }
                    return;
                }
                int index = children.indexOf(ours.name());
                if (sent != null && index < 0) {
                    // the pipelined listing ran before our create was applied (a create that first had to make
                    // the parent, made meanwhile by someone else): list again rather than think our node gone
                    list(e, null);
                    return;
                }
                decide(e, children.names(), index);
            }
        });
    }

    private void decide(long e, List<String> sorted, int index) {
        if (index < 0) {
            ours = null; // deleted (expiry, or by someone): queue again
            next();
            return;
        }
        NodePredicate.Decision d = queue.predicate().decide(sorted, index);
        if (d.acquired()) {
            hold();
        } else if (d.watchesChildren()) {
            watchChildren(e);
        } else {
            // the mutex keeps no listing while it waits (thousands of waiters would each hold one: memory grows
            // with the square of their number); what it needs is whether only the watched node was ahead
            watch(e, d.watch(), queue.predicate() == NodePredicate.EXCLUSIVE
                    ? (index == 1 ? List.of(d.watch(), ours.name()) : null) : sorted);
        }
    }

    /**
     * The semaphore's first waiter: lists with a child watch; decides on that listing, and on any change of the
     * children (a holder's release may let it in) starts over.
     */
    private void watchChildren(long e) {
        dropWatch();
        Watcher w = event -> childrenChanged(e);
        watchedPath = queue.path();
        watcher = w;
        watchType = WatcherType.CHILDREN;
        queue.listings().submit(() -> client.getChildrenAsync(queue.path(), w)).whenComplete((children, err) -> {
            synchronized (this) {
                if (e != epoch || result.isDone()) {
                    if (err == null && watcher != w) {
                        forget(queue.path(), w, WatcherType.CHILDREN);
                    }
                    return;
                }
                if (err != null) {
                    failed(e, err, false);
                    return;
                }
                List<String> sorted = ProtectedNames.sortBySequence(children.names());
                int index = sorted.indexOf(ours.name());
                if (index >= 0 && queue.predicate().decide(sorted, index).watchesChildren()) {
                    return; // still the first waiter: the child watch wakes us
                }
                decide(e, sorted, index);
            }
        });
    }

    private synchronized void childrenChanged(long e) {
        if (watchType == WatcherType.CHILDREN) {
            watcher = null;
        }
        if (e == epoch && !result.isDone()) {
            next();
        }
    }

    /** Watches the node to wait for; when it goes, decides on the cached listing without it. */
    private void watch(long e, String name, List<String> sorted) {
        String path = ZkPaths.join(queue.path(), name);
        dropWatch();
        Watcher w = event -> watchFired(e, event, name, sorted);
        watchedPath = path;
        watcher = w;
        watchType = WatcherType.DATA;
        client.getDataAsync(path, w).whenComplete((d, err) -> {
            synchronized (this) {
                if (e != epoch || result.isDone()) {
                    if (err == null && watcher != w) {
                        forget(path, w, WatcherType.DATA); // set after we stopped caring (cancel, a new chain)
                    }
                    return;
                }
                if (err == null) {
                    if (queue.predicate().marksHolders() && d.stat().version() > 0) {
                        next(); // it holds now (the semaphore's mark): look again
                    } else if (holderWatch != null && queue.predicate() == NodePredicate.EXCLUSIVE
                            && sorted != null && sorted.size() == 2) {
                        // the mutex right behind the first node (the holder): the leased lock judges its lease
                        OwnedNode me = ours;
                        holderWatch.watching(me, path, d.stat(), () -> isCurrent(e, w));
                    }
                    return; // wait for the watch
                }
                if (ClientSupport.unwrap(err) instanceof ZkException.NoNode) {
                    if (watcher == w) {
                        watcher = null; // no watch was left
                    }
                    withoutAndDecide(e, sorted, name);
                } else {
                    failed(e, err, false);
                }
            }
        });
    }

    private synchronized boolean isCurrent(long e, Watcher w) {
        return e == epoch && watcher == w && !result.isDone();
    }

    private synchronized void watchFired(long e, WatchedEvent event, String name, List<String> sorted) {
        if (watcher != null && watchType == WatcherType.DATA && event.path() != null
                && event.path().equals(watchedPath)) {
            watcher = null;
        }
        if (e != epoch || result.isDone()) {
            return;
        }
        if (event.type() == WatchedEvent.Type.NODE_DELETED) {
            withoutAndDecide(e, sorted, name);
        } else {
            next(); // something else happened to it: look again
        }
    }

    /**
     * The watched node went: every node that could precede ours is in the cached listing, so if it says we hold
     * without that node, we do; otherwise list again.
     */
    private void withoutAndDecide(long e, List<String> sorted, String gone) {
        if (sorted == null) {
            // the mutex, with more than the watched node ahead when it looked: we hold if that node held (all
            // before it were gone then, and stay gone); else list again
            if (waiters.heldExclusively(gone)) {
                hold();
            } else {
                list(e, null);
            }
            return;
        }
        List<String> rest = new ArrayList<>(sorted);
        if (queue.predicate() == NodePredicate.EXCLUSIVE && waiters.heldExclusively(gone)) {
            // it held: everything before it was gone by then, and stays gone
            rest = new ArrayList<>(sorted.subList(sorted.indexOf(gone) + 1, sorted.size()));
        }
        rest.remove(gone);
        int index = rest.indexOf(ours.name());
        if (index >= 0 && queue.predicate().decide(rest, index).acquired()) {
            hold();
        } else {
            list(e, null);
        }
    }

    private void hold() {
        if (ours.owner() != client.sessionId()) {
            ours = null;
            next();
            return;
        }
        holding = true;
        OwnedNode node = ours;
        if (queue.predicate() == NodePredicate.EXCLUSIVE) {
            waiters.noteHeldExclusively(node.name()); // a successor of ours through this client holds at once
        }
        dropWatch(); // the semaphore's first waiter's child watch, if it let us in
        if (queue.predicate().marksHolders()) {
            queue.markHeld(node); // wakes a successor that watches this node (it looks again)
        }
        try {
            executor.execute(() -> {
                if (!result.complete(node)) {
                    Cleanup.deleteAsync(client, node.path(), node.owner()); // cancelled meanwhile
                }
            });
        } catch (RuntimeException rejected) {
            holding = false;
            fail(rejected);
        }
    }

    /** A request failed: after a lost connection or an expiry, go on once connected; else fail. */
    private void failed(long e, Throwable err, boolean wasCreate) {
        if (e != epoch || result.isDone()) {
            return;
        }
        RuntimeException cause = ClientSupport.unwrap(err);
        if (cause instanceof ZkException.ConnectionLoss || cause instanceof ZkException.OperationTimeout) {
            if (wasCreate) {
                createLost = true;
            }
            Retries.whenConnected(client).thenRun(this::next);
        } else if (cause instanceof ZkException.SessionExpired) {
            Retries.whenConnected(client).thenRun(this::next);
        } else {
            fail(cause);
        }
    }

    private void fail(Throwable t) {
        executor.execute(() -> result.completeExceptionally(t));
    }

    private void connectionChanged(ZkClient c, ConnectionState s) {
        if (s == ConnectionState.RECONNECTED || s == ConnectionState.CONNECTED) {
            next(); // requests in flight may have been lost, or the session (and our node) may be new: look again
        } else if (s == ConnectionState.LOST && client.isClosed()) {
            next(); // fails with Closed
        }
    }

    private synchronized void dropWatch() {
        if (watcher != null) {
            Watcher w = watcher;
            watcher = null;
            forget(watchedPath, w, watchType);
        }
    }

    /** Removes a watch of ours (a watch that already fired, or is not there yet, is no error). */
    private void forget(String path, Watcher w, WatcherType type) {
        try {
            client.removeWatchesAsync(path, w, type, true).exceptionally(x -> null);
        } catch (RuntimeException ignored) {
            // the client is closing: its watches go with it
        }
    }

    /** The future is complete: stop listening; unless we hold, delete our node and drop the watch. */
    private void finished(Throwable err) {
        client.removeConnectionStateListener(onConnection);
        waiters.leave();
        OwnedNode node;
        synchronized (this) {
            epoch++;
            dropWatch();
            node = ours;
        }
        if (err != null && node != null) {
            Cleanup.deleteAsync(client, node.path(), node.owner());
        }
    }
}
