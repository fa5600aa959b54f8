package dev.zkr.recipes;

import dev.zkr.client.ConnectionState;
import dev.zkr.client.ConnectionStateListener;
import dev.zkr.client.ZkClient;
import dev.zkr.client.ZkException;
import dev.zkr.recipes.internal.Cleanup;
import dev.zkr.recipes.internal.Deadline;
import dev.zkr.recipes.internal.OwnedNode;
import dev.zkr.recipes.internal.Retries;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The take-leadership form of election (Curator's {@code LeaderSelector}). Build one with
 * {@link Recipes#leaderSelector(String)}. The selector competes (fair: in arrival order; unfair: a race) and, each
 * time it leads, runs its {@link TakeLeadership} callback on its own thread with a {@link Leadership}; leadership
 * is given up (the node deleted) when the callback returns or throws, and the selector queues again at the end
 * (auto requeue, the default) or waits for {@link #requeue()}.
 *
 * <p>Losing leadership interrupts the callback's thread and invalidates its fencing token: at once when the
 * session expires, and when the connection stays suspended longer than the bound (default zero: at once; capped
 * at a sixth of the session timeout, so the callback is told before the server can expire the session and let
 * another participant lead). A suspension shorter than the bound only makes the term uncertain; the same session
 * back in time makes it certain again, same token. The node of a lost term is deleted as soon as the server is
 * reachable, even if the callback ignores the interrupt, so the others do not wait for it.
 */
public final class LeaderSelector implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(LeaderSelector.class);
    private static final long ERROR_PAUSE_MS = 100;

    private final ZkClient client;
    private final String path;
    private final String id;
    private final Election election;
    private final boolean autoRequeue;
    private final Duration suspensionBound;
    private final Executor executor;
    private final TakeLeadership callback;
    private final Lifecycle lifecycle = new Lifecycle("LeaderSelector");
    private final ConnectionStateListener onConnection = this::connectionChanged;
    private final CompletableFuture<Void> stopped = new CompletableFuture<>();
    private final Map<OwnedNode, CompletableFuture<Void>> resigned = new ConcurrentHashMap<>();
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    // guarded by lock
    private Leadership term;
    private OwnedNode termNode;
    private boolean inCallback;
    private boolean queued = true;
    private boolean again;
    private final List<CompletableFuture<Leadership>> awaiting = new ArrayList<>(); // awaitLeadershipAsync()
    private volatile Thread runner;

    LeaderSelector(ZkClient client, String path, String id, Election election, boolean autoRequeue,
                   Duration suspensionBound, Executor executor, TakeLeadership callback) {
        this.client = client;
        this.path = path;
        this.id = id;
        this.election = election;
        this.autoRequeue = autoRequeue;
        this.suspensionBound = suspensionBound;
        this.executor = executor;
        this.callback = callback;
    }

    void start() {
        lifecycle.start();
        client.addConnectionStateListener(onConnection);
        try {
            executor.execute(this::run);
        } catch (RuntimeException e) {
            client.removeConnectionStateListener(onConnection);
            stopped.complete(null);
            throw e;
        }
    }

    private void run() {
        runner = Thread.currentThread();
        try {
            while (lifecycle.isStarted()) {
                awaitQueued();
                OwnedNode node;
                try {
                    node = election.elect(null, null);
                } catch (ZkException.Interrupted | ZkException.Closed e) {
                    throw e;
                } catch (RuntimeException e) {
                    // never a silent end (CURATOR-15): log, wait for the connection, compete again
                    LOG.warn("selector {} ({}) could not compete, trying again", path, id, e);
                    pauseAfterError();
                    continue;
                }
                lead(node);
            }
        } catch (InterruptedException | ZkException.Interrupted e) {
            // closed
        } catch (ZkException.Closed e) {
            LOG.debug("selector {} stops: client closed", path);
        } catch (RuntimeException e) {
            LOG.warn("selector {} ({}) stopped after an error", path, id, e);
        } finally {
            Thread.interrupted();
            try {
                election.leave();
            } finally {
                runner = null;
                stopped.complete(null);
            }
        }
    }

    /** Waits until the selector is queued (always, with auto requeue); throws InterruptedException when closed. */
    private void awaitQueued() throws InterruptedException {
        lock.lock();
        try {
            while (!queued && lifecycle.isStarted()) {
                changed.await();
            }
            if (!lifecycle.isStarted()) {
                throw new InterruptedException("closed");
            }
        } finally {
            lock.unlock();
        }
    }

    private void pauseAfterError() throws InterruptedException {
        Retries.awaitConnected(client, Deadline.after(Duration.ofMillis(ERROR_PAUSE_MS * 10)));
        lock.lock();
        try {
            if (lifecycle.isStarted()) {
                changed.await(ERROR_PAUSE_MS, TimeUnit.MILLISECONDS); // a bounded back-off, cut short by close
            }
        } finally {
            lock.unlock();
        }
    }

    /** One term: publishes it, runs the callback, gives the node up and waits until it is gone. */
    private void lead(OwnedNode node) throws InterruptedException {
        Leadership t = new Leadership(this, node.czxid(), node.owner());
        boolean certain;
        List<CompletableFuture<Leadership>> ready = List.of();
        lock.lock();
        try {
            if (!lifecycle.isStarted()) {
                resignation(node);
                return;
            }
            term = t;
            termNode = node;
            inCallback = true;
            // the connection may have gone between the election and now (CURATOR-54): judge it here, under the
            // lock the connection listener takes, so no event falls between the two
            certain = client.state().isConnected() && node.owner() == client.sessionId();
            if (!certain) {
                suspendedLocked(t, node);
            } else {
                ready = drainAwaiting();
            }
        } finally {
            lock.unlock();
        }
        completeLater(ready, t, null);
        try {
            callback.takeLeadership(t);
        } catch (InterruptedException | ZkException.Interrupted e) {
            // leadership lost, interrupted or closed: the usual way out
        } catch (Exception e) {
            LOG.warn("selector {} ({}): takeLeadership failed; leadership is given up", path, id, e);
        } finally {
            lock.lock();
            try {
                inCallback = false;
                term = null;
                termNode = null;
                t.move(LeaseState.RELEASED);
                queued = autoRequeue || again;
                again = false;
                changed.signalAll();
            } finally {
                lock.unlock();
            }
            Thread.interrupted(); // an interrupt meant for the callback; close() is seen through the lifecycle
        }
        awaitGone(resignation(node));
    }

    /** Waits until the node's delete is done: a new node (or the unfair race) must not meet our old one. */
    private static void awaitGone(CompletableFuture<Void> deleted) throws InterruptedException {
        try {
            deleted.get();
        } catch (ExecutionException e) {
            // resignation never fails
        }
    }

    private void connectionChanged(ZkClient c, ConnectionState s) {
        boolean verify = false;
        OwnedNode node;
        Leadership t;
        lock.lock();
        try {
            changed.signalAll();
            t = term;
            node = termNode;
            if (t == null) {
                return;
            }
            if (s == ConnectionState.SUSPENDED) {
                suspendedLocked(t, node);
            } else if (s == ConnectionState.LOST || node.owner() != client.sessionId()) {
                loseLocked(t, node, LeaseState.LOST);
            } else if (s == ConnectionState.RECONNECTED && t.rawState() == LeaseState.UNCERTAIN) {
                verify = true;
            }
        } finally {
            lock.unlock();
        }
        if (verify) {
            confirm(t, node);
        }
    }

    /** The same session is back: the term is certain again once its node is seen, ours, and still current. */
    private void confirm(Leadership t, OwnedNode node) {
        CompletableFuture<dev.zkr.client.Stat> seen;
        try {
            seen = client.existsAsync(node.path(), null);
        } catch (RuntimeException e) {
            return;
        }
        seen.whenComplete((stat, err) -> {
            List<CompletableFuture<Leadership>> ready = List.of();
            lock.lock();
            try {
                if (term != t) {
                    return;
                }
                if (err == null && stat != null && stat.czxid() == node.czxid()
                        && stat.ephemeralOwner() == client.sessionId() && client.state().isConnected()) {
                    if (t.move(LeaseState.HELD)) {
                        ready = drainAwaiting(); // certain again: those waiting for a valid term get this one
                    }
                } else if (err == null) {
                    loseLocked(t, node, LeaseState.LOST); // the node is gone (deleted by someone)
                }
            } finally {
                lock.unlock();
            }
            completeLater(ready, t, null);
        });
    }

    /** Under the lock: the term is uncertain; it is lost at once (bound zero, new session) or when the bound passes. */
    private void suspendedLocked(Leadership t, OwnedNode node) {
        if (node.owner() != client.sessionId()) {
            loseLocked(t, node, LeaseState.LOST);
            return;
        }
        long bound = boundMillis();
        if (bound <= 0) {
            loseLocked(t, node, LeaseState.LOST);
            return;
        }
        if (t.move(LeaseState.UNCERTAIN)) {
            Executor later = CompletableFuture.delayedExecutor(bound, TimeUnit.MILLISECONDS, executor);
            later.execute(() -> boundPassed(t, node));
        }
    }

    /**
     * The bound, at most a sixth of the session timeout: a client notices a dead connection about two thirds of
     * the session timeout after it last heard from the server, so the server may expire the session (and let
     * another participant lead) a third of it after SUSPENDED (CURATOR-460); a sixth leaves the other half of that
     * third as the margin (a third left none: the interrupt came with the expiry, 5 ms before to 66 ms after the
     * next leader's term began in a partition test).
     */
    long boundMillis() {
        long cap = client.sessionTimeout().toMillis() / 6;
        return Math.min(suspensionBound.toMillis(), cap);
    }

    private void boundPassed(Leadership t, OwnedNode node) {
        lock.lock();
        try {
            if (term == t && t.rawState() == LeaseState.UNCERTAIN) {
                loseLocked(t, node, LeaseState.LOST);
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * Under the lock: ends the term (its token is invalid from now), interrupts the callback and starts deleting the
     * node, so the others can lead whatever the callback does.
     */
    private void loseLocked(Leadership t, OwnedNode node, LeaseState to) {
        if (!t.move(to)) {
            return;
        }
        Thread r = runner;
        if (term == t && inCallback && r != null) {
            r.interrupt();
        }
        resignation(node);
    }

    private CompletableFuture<Void> resignation(OwnedNode node) {
        return resigned.computeIfAbsent(node, election::resign);
    }

    /**
     * Waits without a thread until this selector leads: completes (on the recipes' executor) with the term once one
     * is valid (at once if the current one is), also with the same term again certain after a short suspension;
     * fails with IllegalStateException if the selector is or gets closed. Cancel it to stop waiting (the selector
     * itself competes on). The term may end at any moment after: check {@link Leadership#isValid()} and pass its
     * fencing token on.
     */
    public CompletableFuture<Leadership> awaitLeadershipAsync() {
        CompletableFuture<Leadership> f = new CompletableFuture<>();
        Leadership now;
        lock.lock();
        try {
            if (lifecycle.isClosed()) {
                f.completeExceptionally(new IllegalStateException("selector closed"));
                return f;
            }
            now = term != null && term.isValid() ? term : null;
            if (now == null) {
                awaiting.add(f);
            }
        } finally {
            lock.unlock();
        }
        if (now != null) {
            completeLater(List.of(f), now, null);
        } else {
            f.whenComplete((v, err) -> {
                if (err != null) {
                    lock.lock();
                    try {
                        awaiting.remove(f); // cancelled: forget it
                    } finally {
                        lock.unlock();
                    }
                }
            });
        }
        return f;
    }

    /** Under the lock: the awaitLeadershipAsync() futures waiting so far, taken out. */
    private List<CompletableFuture<Leadership>> drainAwaiting() {
        if (awaiting.isEmpty()) {
            return List.of();
        }
        List<CompletableFuture<Leadership>> out = new ArrayList<>(awaiting);
        awaiting.clear();
        return out;
    }

    /** Completes the futures on the recipes' executor (never on the event thread, never under the lock). */
    private void completeLater(List<CompletableFuture<Leadership>> futures, Leadership t, RuntimeException failure) {
        if (futures.isEmpty()) {
            return;
        }
        Runnable done = () -> futures.forEach(f -> {
            if (failure == null) {
                f.complete(t);
            } else {
                f.completeExceptionally(failure);
            }
        });
        try {
            executor.execute(done);
        } catch (RuntimeException rejected) {
            done.run();
        }
    }

    /** True while this participant leads with certainty (its current term is valid). */
    public boolean hasLeadership() {
        Leadership t = term;
        return t != null && t.isValid();
    }

    /** True if the client is connected with this session. */
    boolean connectedAs(long session) {
        return client.sessionId() == session && client.state().isConnected();
    }

    /**
     * Ends the current term as if its callback had returned: its thread is interrupted, its token invalid, its node
     * deleted; the selector queues again if it requeues. No-op when not leading.
     */
    public void interruptLeadership() {
        lock.lock();
        try {
            if (term != null) {
                loseLocked(term, termNode, LeaseState.RELEASED);
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * Competes once more: needed only without auto requeue, after a term ended (one call, one more term; a call
     * during a term or while queued asks for the next one). Throws IllegalStateException if not started.
     */
    public void requeue() {
        lifecycle.checkStarted();
        lock.lock();
        try {
            if (queued) {
                again = true;
            } else {
                queued = true;
                changed.signalAll();
            }
        } finally {
            lock.unlock();
        }
    }

    /** The id of the current leader, as stored in its node; empty if nobody leads. */
    public Optional<String> leaderId() {
        return election.leaderId();
    }

    /** The ids of all participants, the leader first (fair mode: in queue order). */
    public List<String> participants() {
        return election.participants();
    }

    /** This participant's id. */
    public String id() {
        return id;
    }

    public String path() {
        return path;
    }

    /**
     * Leaves the election: the current term (if any) ends (its callback interrupted, its token invalid), the node
     * is deleted, and this returns once it is gone and the selector's thread has stopped (each wait bounded, and
     * cut short while disconnected: the delete then goes on in the background). A callback that ignores the
     * interrupt may still be returning. Idempotent.
     */
    @Override
    public void close() {
        if (!lifecycle.close()) {
            return;
        }
        CompletableFuture<Void> gone = null;
        List<CompletableFuture<Leadership>> waiting;
        lock.lock();
        try {
            if (term != null) {
                loseLocked(term, termNode, LeaseState.RELEASED);
                gone = resignation(termNode);
            }
            changed.signalAll();
            waiting = drainAwaiting();
        } finally {
            lock.unlock();
        }
        completeLater(waiting, null, new IllegalStateException("selector closed"));
        client.removeConnectionStateListener(onConnection);
        Thread t = runner;
        if (t != null) {
            t.interrupt();
        }
        if (t != Thread.currentThread()) {
            Cleanup.awaitQuietly(client, gone == null ? stopped : gone);
            if (gone != null) {
                Cleanup.awaitQuietly(client, stopped);
            }
        }
    }

    @Override
    public String toString() {
        return "LeaderSelector[" + path + ", id=" + id + ", leader=" + hasLeadership() + "]";
    }
}
