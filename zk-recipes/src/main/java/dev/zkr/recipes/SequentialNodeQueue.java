package dev.zkr.recipes;

import dev.zkr.client.Children;
import dev.zkr.client.ClientSupport;
import dev.zkr.client.NodeData;
import dev.zkr.client.ZkClient;
import dev.zkr.client.ZkException;
import dev.zkr.client.ZkPaths;
import dev.zkr.recipes.internal.AsyncGate;
import dev.zkr.recipes.internal.Cleanup;
import dev.zkr.recipes.internal.Deadline;
import dev.zkr.recipes.internal.OwnedNode;
import dev.zkr.recipes.internal.ProtectedNames;
import dev.zkr.recipes.internal.Retries;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * The shared driver of the fair recipes (lock, read/write lock, fair election), like Curator's LockInternals:
 * each participant creates a protected ephemeral-sequential node under one parent and, as told by a
 * {@link NodePredicate}, either holds or watches exactly one other node (getData watch, no herd) until it goes.
 *
 * <p>A participant holds only through a node its <em>current</em> session owns: after session expiry the old node
 * is forgotten and a new one queues at the end, so two sessions never both believe they hold.
 */
final class SequentialNodeQueue {

    /** The data of a node marked as holding ({@link NodePredicate#marksHolders()}). */
    static final byte[] HELD = "held".getBytes(java.nio.charset.StandardCharsets.UTF_8);
    private static final int MARK_ATTEMPTS = 20;
    private static final int LISTINGS_IN_FLIGHT = 4;

    private final ZkClient client;
    private final String path;
    private final String base;
    private final NodePredicate predicate;
    private final AsyncGate listings = new AsyncGate(LISTINGS_IN_FLIGHT);

    SequentialNodeQueue(ZkClient client, String path, String base, NodePredicate predicate) {
        this.client = client;
        this.path = ZkPaths.validate(path);
        this.base = base;
        this.predicate = predicate;
    }

    String path() {
        return path;
    }

    String base() {
        return base;
    }

    NodePredicate predicate() {
        return predicate;
    }

    /**
     * The listings with a child watch of this queue's asynchronous acquires (the semaphore's first waiter), a few
     * at a time (see {@link AsyncGate}); plain listings are shared per client and path ({@link ListingBatch}).
     */
    AsyncGate listings() {
        return listings;
    }

    /** The participants' names, sorted by arrival (sequence). */
    List<String> sortedChildren() {
        try {
            return ProtectedNames.sortBySequence(client.getChildren(path));
        } catch (ZkException.NoNode e) {
            return List.of();
        }
    }

    /**
     * Queues (with {@code existing}, if still owned by the current session, or a new node) and waits until the
     * predicate says we hold. Returns the held node, or null if the deadline passed (our node is then deleted).
     * On interrupt or failure our node is deleted and the exception propagates.
     *
     * <p>Round trips: a new node's create and the listing are pipelined (the listing is sent before the create's
     * response; the server answers it after the create). Then only the watched node is read (with a watch). When
     * it goes, the predicate decides again on the cached listing without it: every node that could precede ours
     * is in that listing (a node created later has a higher sequence number), so the listing can only have shrunk
     * since. If that says we hold (the watched node was the last one ahead of us), no further request is needed;
     * otherwise the watch callback lists again at once (one getChildren, on the client's event thread, so it does
     * not wait for the waiting thread to wake), like Curator rather than probing the other cached nodes one by
     * one, and the waiting thread decides on that listing. Except where the node the cached listing names next may
     * still hold (a writer behind readers, {@link #speculates}): the waiting thread then watches that node without
     * waiting for the listing: if it is still there it is the right one, and the step cost one round trip instead
     * of a listing and then a read (Curator: both); if it has gone, the listing, answered before that read, is
     * decided on. After a connection event or another watch event we list again.
     */
    OwnedNode acquire(OwnedNode existing, byte[] data, Deadline deadline) {
        return acquire(existing, data, deadline, null);
    }

    /**
     * As {@link #acquire(OwnedNode, byte[], Deadline)}; {@code whenHeld} (if not null) is told of the node early,
     * on the client's event thread, when the deletion of the watched node makes it the holder (on the cached
     * listing, or on the listing sent when the node went), before the waiting thread wakes up, never after this
     * returns. It must not block.
     * It returns true if it takes the node over: should the waiting thread then fail (interrupt, deadline), the
     * exception propagates as usual but the node is left for the caller to delete.
     */
    OwnedNode acquire(OwnedNode existing, byte[] data, Deadline deadline, Predicate<OwnedNode> whenHeld) {
        OwnedNode ours = existing;
        boolean held = false;
        EarlyWord early = new EarlyWord(whenHeld);
        CompletableFuture<Children> relisted = null; // sent by the watch callback when the watched node went
        List<String> cachedAhead = null; // the cached listing without the node that went: decided on first
        List<String> fromWatch = null; // a listing to decide on next (from a child watch's read)
        boolean waited = false; // this node waited: successors may watch it
        boolean first = true; // a zero timeout still makes one attempt
        try {
            while (first || !deadline.expired()) {
                first = false;
                if (ours != null && ours.owner() != client.sessionId()) {
                    ours = null; // its session expired: the node is gone with it
                }
                List<String> sorted = null;
                boolean onCache = false; // sorted is the cached listing, not an answer of the server since
                if (ours == null) {
                    waited = false;
                    fromWatch = null;
                    cachedAhead = null;
                    relisted = null;
                    @SuppressWarnings("unchecked")
                    CompletableFuture<Children>[] listing = new CompletableFuture[1];
                    ours = ProtectedNames.create(client, path, base, data, deadline,
                            () -> listing[0] = client.getChildrenAsync(path, null));
                    sorted = listed(listing[0], ours);
                } else if (cachedAhead != null) {
                    sorted = cachedAhead;
                    onCache = true;
                } else if (relisted != null) {
                    sorted = listed(relisted, ours);
                    relisted = null;
                } else if (fromWatch != null) {
                    sorted = fromWatch.contains(ours.name()) ? fromWatch : null;
                }
                cachedAhead = null;
                fromWatch = null;
                if (sorted == null) {
                    sorted = Retries.retrying(client, deadline, this::sortedChildren);
                }
                int index = sorted.indexOf(ours.name());
                if (index < 0) {
                    ours = null; // deleted (expiry, or by someone): queue again
                    continue;
                }
                NodePredicate.Decision decision = predicate.decide(sorted, index);
                boolean laterNodes = index < sorted.size() - 1;
                if (decision.watchesChildren()) {
                    waited = true;
                    relisted = null;
                    fromWatch = awaitChildren(ours, deadline);
                    continue;
                }
                if (!decision.acquired()) {
                    waited = true;
                    List<String> ahead = new ArrayList<>(sorted.subList(0, index + 1));
                    ahead.remove(decision.watch());
                    NodePredicate.Decision next = predicate.decide(ahead, ahead.size() - 1);
                    boolean speculate = speculates(decision, next, early);
                    OnDeleted onDeleted = new OnDeleted(ours, next.acquired(), early, speculate);
                    Gone gone = waitForDeletion(ours, ZkPaths.join(path, decision.watch()), deadline, onDeleted);
                    if (gone == Gone.WHILE_WATCHED) {
                        decision = next;
                        // not acquired on the cached listing: the callback listed again; when speculating, the
                        // node the cache names next is watched at once, the listing kept for if it has gone
                        relisted = onDeleted.relisted;
                        cachedAhead = speculate ? ahead : null;
                    } else if (gone == Gone.BEFORE_THE_WATCH) {
                        decision = next;
                        // on the cache, and it is not enough: the listing the last deletion sent is fresher
                        if (!onCache || next.acquired() || relisted == null) {
                            relisted = null;
                        }
                    } else {
                        relisted = null;
                    }
                }
                if (decision.acquired()) {
                    if (ours.owner() != client.sessionId()) {
                        ours = null;
                        continue;
                    }
                    if (Thread.currentThread().isInterrupted()) {
                        // interrupted while (or just after) being woken: honour it as a blocking call would
                        throw new ZkException.Interrupted(path, "interrupted while acquiring");
                    }
                    if (predicate.marksHolders() && (waited || laterNodes)) {
                        markHeld(ours, MARK_ATTEMPTS);
                    }
                    held = true;
                    return ours;
                }
            }
            return null;
        } finally {
            OwnedNode takenOver = early.finish(); // no early word after this: we hold, or failed
            if (!held && ours != null && !ours.equals(takenOver)) {
                Cleanup.deleteQuietly(client, ours.path(), ours.owner());
            }
        }
    }

    /**
     * True if, once the watched node has gone and the cached listing without it still says wait, the waiter
     * watches the node that cached listing names next right away, without waiting for the listing the deletion
     * sends: when that node may still hold although the one that went held too
     * ({@link NodePredicate#mayHoldTogether}: a writer behind readers). Sound because the strategy decides on the
     * nodes ahead only, and the cached listing holds every node ahead of ours (a later node has a higher sequence
     * number): if the node it names is still there when read, the server's listing names it too, as the nearest
     * node ahead. The read goes out behind the listing (one session's requests are answered in order): if the node
     * has gone meanwhile, that listing is there to decide on. Not with an early word (its callback decides on the
     * listing) nor for strategies whose holders mark their nodes (the semaphore: a node ahead may begin to hold,
     * and the waiter must look again).
     */
    private boolean speculates(NodePredicate.Decision watching, NodePredicate.Decision next, EarlyWord early) {
        return !next.acquired() && !early.wanted() && !predicate.marksHolders()
                && predicate.mayHoldTogether(next.watch(), watching.watch());
    }

    /**
     * Runs on the client's event thread when the watched node is deleted: if the cached listing then says we hold,
     * gives the early word at once; otherwise sends the new listing right away (the waiting thread picks it up
     * when it wakes, which is once that listing is there, or at once when it speculates) and gives the early word
     * if that listing says we hold.
     */
    private final class OnDeleted implements Supplier<CompletableFuture<?>> {

        private final OwnedNode ours;
        private final boolean heldOnCachedListing;
        private final EarlyWord early;
        private final boolean speculate;
        volatile CompletableFuture<Children> relisted;

        OnDeleted(OwnedNode ours, boolean heldOnCachedListing, EarlyWord early, boolean speculate) {
            this.ours = ours;
            this.heldOnCachedListing = heldOnCachedListing;
            this.early = early;
            this.speculate = speculate;
        }

        @Override
        public CompletableFuture<?> get() {
            if (heldOnCachedListing) {
                early.offer(ours);
                return null;
            }
            CompletableFuture<Children> listing;
            try {
                listing = client.getChildrenAsync(path, null);
            } catch (RuntimeException e) {
                return null; // e.g. the client is closing: the waiting thread lists (and fails) itself
            }
            relisted = listing;
            if (speculate) {
                return null; // the waiting thread wakes now and reads the next cached node behind this listing
            }
            if (!early.wanted()) {
                return listing;
            }
            return listing.thenAccept(children -> {
                List<String> sorted = ProtectedNames.sortBySequence(children.names());
                int index = sorted.indexOf(ours.name());
                if (index >= 0 && predicate.decide(sorted, index).acquired()) {
                    early.offer(ours);
                }
            });
        }
    }

    /**
     * The early word of one acquire call: watch callbacks offer the node to {@code whenHeld} until the waiting
     * thread is done; the node it takes over is then the caller's to delete.
     */
    private static final class EarlyWord {

        private final Predicate<OwnedNode> whenHeld;
        private OwnedNode takenOver; // guarded by this
        private boolean done; // guarded by this

        EarlyWord(Predicate<OwnedNode> whenHeld) {
            this.whenHeld = whenHeld;
        }

        boolean wanted() {
            return whenHeld != null;
        }

        synchronized void offer(OwnedNode node) {
            if (whenHeld != null && !done && takenOver == null && whenHeld.test(node)) {
                takenOver = node;
            }
        }

        /** The waiting thread is done (holds or failed): no more offers. Returns the node taken over, if any. */
        synchronized OwnedNode finish() {
            done = true;
            return takenOver;
        }
    }

    /** A listing sent earlier, sorted, if it answered and shows our node; null to list again. */
    private static List<String> listed(CompletableFuture<Children> listing, OwnedNode ours) {
        if (listing == null) {
            return null;
        }
        List<String> sorted;
        try {
            sorted = ProtectedNames.sortBySequence(ClientSupport.await(listing).names());
        } catch (ZkException.Interrupted e) {
            throw e;
        } catch (ZkException e) {
            return null; // e.g. the parent was created after the first create attempt
        }
        return sorted.contains(ours.name()) ? sorted : null;
    }

    /**
     * The first waiter's wait: lists with a child watch until that listing no longer says "wait for children" (and
     * returns it) or the watch fires, the connection changes or the deadline passes (null: list again).
     */
    private List<String> awaitChildren(OwnedNode ours, Deadline deadline) {
        ChildWatch watch = ChildWatch.open(client, path);
        try {
            if (lostWith(ours)) {
                return null; // the session went before the watch listened: list (and queue) again
            }
            List<String> now = watch.read();
            int index = now.indexOf(ours.name());
            if (index < 0 || !predicate.decide(now, index).watchesChildren()) {
                return now;
            }
            watch.await(deadline);
            return null;
        } catch (ZkException.ConnectionLoss | ZkException.OperationTimeout e) {
            Retries.recover(client, deadline);
            return null;
        } catch (ZkException.SessionExpired e) {
            Retries.awaitConnected(client, deadline);
            return null;
        } finally {
            watch.close();
        }
    }

    /**
     * True if our node went with a session that has ended. Asked once a watch's connection listener is registered:
     * an expiry the listener missed has already changed the client's session id; a later one wakes the watch.
     * Without this, a session that expires between the listing and the watch leaves the waiter watching a
     * predecessor for a node that no longer exists, possibly for ever (a leader need never go).
     */
    private boolean lostWith(OwnedNode ours) {
        return ours.owner() != client.sessionId();
    }

    /**
     * Marks a node that begins to hold while nodes ahead of it stay ({@link NodePredicate#marksHolders()}): a data
     * change at version 0 wakes a successor that watches it. Sent now, retried after a lost connection while the
     * session lasts; BadVersion means the node was written already (which woke the successor just as well).
     */
    void markHeld(OwnedNode node) {
        markHeld(node, MARK_ATTEMPTS);
    }

    private void markHeld(OwnedNode node, int attempts) {
        if (client.sessionId() != node.owner()) {
            return;
        }
        CompletableFuture<?> sent;
        try {
            sent = client.setDataAsync(node.path(), HELD, 0);
        } catch (RuntimeException e) {
            return;
        }
        sent.whenComplete((stat, err) -> {
            if (err == null || attempts <= 1) {
                return;
            }
            RuntimeException cause = ClientSupport.unwrap(err);
            if (cause instanceof ZkException.ConnectionLoss || cause instanceof ZkException.OperationTimeout) {
                Retries.whenConnected(client).thenRun(() -> markHeld(node, attempts - 1));
            }
        });
    }

    /** How a wait for a node's deletion ended. */
    private enum Gone {
        /** The node was not there when read (no watch was left). */
        BEFORE_THE_WATCH,
        /** The watch saw it deleted. */
        WHILE_WATCHED,
        /** Not known to be gone: its data changed, the connection changed, or the deadline passed. */
        NOT_KNOWN
    }

    /**
     * Waits until the node goes, something else happens (its data changes, the connection changes) or the
     * deadline passes.
     */
    private Gone waitForDeletion(OwnedNode ours, String other, Deadline deadline, OnDeleted onDeleted) {
        NodeWatch watch = NodeWatch.open(client, other, onDeleted);
        try {
            if (lostWith(ours)) {
                return Gone.NOT_KNOWN; // the session went before the watch listened: nothing would wake us: queue again
            }
            NodeData data = watch.read();
            if (data == null) {
                return Gone.BEFORE_THE_WATCH;
            }
            if (predicate.marksHolders() && data.stat().version() > 0) {
                return Gone.NOT_KNOWN; // it holds now (or was asked to give up what it holds): look again
            }
            watch.await(deadline);
            return watch.deleted() ? Gone.WHILE_WATCHED : Gone.NOT_KNOWN;
        } catch (ZkException.ConnectionLoss | ZkException.OperationTimeout e) {
            Retries.recover(client, deadline);
            return Gone.NOT_KNOWN;
        } catch (ZkException.SessionExpired e) {
            Retries.awaitConnected(client, deadline); // our node went with the session: queue again
            return Gone.NOT_KNOWN;
        } finally {
            watch.close();
        }
    }

    /**
     * Starts giving up a node: the delete is sent now; the future completes when it is done (retried in the
     * background while the connection is down, until done or the session is gone). Never fails.
     */
    CompletableFuture<Void> releaseAsync(OwnedNode node) {
        return Cleanup.deleteAsync(client, node.path(), node.owner());
    }
}
