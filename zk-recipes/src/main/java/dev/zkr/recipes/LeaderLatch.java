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
import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * A leader election participant. Build one with {@link Recipes#leaderLatch(String)}. Fair mode queues
 * ephemeral-sequential nodes and leadership follows arrival order; unfair mode races for one ephemeral node.
 *
 * <p>Leadership is claimed only through a node owned by the client's current session. A suspended connection
 * revokes leadership (it is uncertain: {@link #isLeader()} is false and onRevoked runs); if the same session
 * reconnects and still leads, leadership comes back (onElected again, same fencing token). After session expiry
 * the latch competes again with a new node (unless built with {@code rejoinAfterLost(false)}).
 *
 * <p>Latency: a fair successor is told it leads by the watch on its predecessor, on the client's event thread,
 * which hands the onElected call straight to the listener executor (the waiting thread catches up afterwards);
 * {@link #close()} of a leader sends the delete of its node at once, before it stops the background thread.
 * Listener calls are queued in the order of the state changes, whichever thread makes them.
 */
public final class LeaderLatch implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(LeaderLatch.class);

    private final ZkClient client;
    private final String path;
    private final String id;
    private final Election election;
    private final boolean rejoinAfterLost;
    private final Executor executor;
    private final SerialExecutor listenerExecutor;
    private final Predicate<OwnedNode> early;
    private final Listeners<Consumer<LeaderLatch>> elected;
    private final Listeners<Consumer<LeaderLatch>> revoked;
    private final Lifecycle lifecycle = new Lifecycle("LeaderLatch");
    private final LinkedBlockingQueue<ConnectionState> events = new LinkedBlockingQueue<>();
    private final ConnectionStateListener onConnection = this::connectionChanged;
    // complete when the runner has stopped and the deletes it sent are done
    private final CompletableFuture<Void> stopped = new CompletableFuture<>();
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    // non-null while leading; set (onElected queued) and cleared (onRevoked queued) under the lock
    private volatile OwnedNode leaderNode;
    private volatile Thread runner;
    private boolean runnerStopped; // guarded by lock: no early word may make us leader any more
    private final Map<OwnedNode, CompletableFuture<Void>> resigned = new ConcurrentHashMap<>(); // deletes sent
    private final List<CompletableFuture<Void>> awaiting = new ArrayList<>(); // awaitAsync() futures; guarded by lock

    LeaderLatch(ZkClient client, String path, String id, Election election, boolean rejoinAfterLost,
                Executor executor, SerialExecutor listenerExecutor,
                Consumer<LeaderLatch> onElected, Consumer<LeaderLatch> onRevoked) {
        this.client = client;
        this.path = path;
        this.id = id;
        this.election = election;
        this.rejoinAfterLost = rejoinAfterLost;
        this.executor = executor;
        this.listenerExecutor = listenerExecutor;
        // the early word comes on the client's event thread, which then starts the listener executor: only
        // allowed when that is the recipes' own (asynchronous) executor, never one that might run the call inline
        this.early = listenerExecutor.runsOn(executor) ? this::electedEarly : null;
        this.elected = new Listeners<>(listenerExecutor);
        this.revoked = new Listeners<>(listenerExecutor);
        if (onElected != null) {
            elected.add(onElected, null);
        }
        if (onRevoked != null) {
            revoked.add(onRevoked, null);
        }
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
        OwnedNode node = null;
        try {
            while (lifecycle.isStarted()) {
                node = election.elect(node, early);
                if (!lifecycle.isStarted()) {
                    break;
                }
                becomeLeader(node);
                awaitTrouble(node);
                revoke();
                Retries.awaitConnected(client, Deadline.NONE);
                if (node.owner() != client.sessionId()) {
                    node = null; // the session expired: its node is gone with it
                    if (!rejoinAfterLost) {
                        while (true) {
                            events.take(); // out of the election until closed
                        }
                    }
                }
                // else: the same session is back; elect() checks that we still lead
            }
        } catch (InterruptedException | ZkException.Interrupted e) {
            // closed
        } catch (ZkException.Closed e) {
            LOG.debug("latch {} stops: client closed", path);
        } catch (RuntimeException e) {
            LOG.warn("latch {} ({}) stopped after an error", path, id, e);
        } finally {
            Thread.interrupted();
            boolean kick;
            OwnedNode leading;
            lock.lock();
            try {
                runnerStopped = true;
                leading = leaderNode; // null if close() took it; else possibly a node elect() had not yet returned
                kick = revokeLocked();
            } finally {
                lock.unlock();
            }
            if (kick) {
                listenerExecutor.kick();
            }
            // close() may have sent these deletes already; this thread does not wait for them: "stopped" completes
            // when they are done, so only close() is woken by their responses
            CompletableFuture<Void> left = CompletableFuture.allOf(
                    leading == null ? CompletableFuture.completedFuture(null) : resignation(leading),
                    node == null ? CompletableFuture.completedFuture(null) : resignation(node));
            try {
                election.leave();
            } finally {
                runner = null;
                left.whenComplete((v, e) -> stopped.complete(null));
            }
        }
    }

    /**
     * Returns at the first connection event that puts leadership in doubt: suspended, lost, or a new session.
     * Events that are already over (the same session is connected again) are ignored.
     */
    private void awaitTrouble(OwnedNode node) throws InterruptedException {
        while (true) {
            ConnectionState s = events.take();
            if (s == ConnectionState.RECONNECTED) {
                continue;
            }
            if (client.state().isConnected() && node.owner() == client.sessionId()) {
                continue; // stale: the session and its node are still there
            }
            return;
        }
    }

    private void connectionChanged(ZkClient c, ConnectionState s) {
        events.add(s);
        List<CompletableFuture<Void>> ready = List.of();
        lock.lock();
        try {
            changed.signalAll(); // isLeader() depends on the connection: waiters re-check
            if (isLeader()) {
                ready = drainAwaiting(); // leading again through the same node (a short suspension)
            }
        } finally {
            lock.unlock();
        }
        completeLater(ready, null);
    }

    /**
     * On the client's event thread: the predecessor went and our node leads (the runner will agree when it
     * wakes). True if we now lead through it: from here close() or the runner's exit deletes it.
     */
    private boolean electedEarly(OwnedNode node) {
        return node.owner() == client.sessionId() && becomeLeader(node);
    }

    /**
     * Leads through {@code node} (unless closed or stopped) and queues onElected, unless already leading through
     * it; true if leading through it.
     */
    private boolean becomeLeader(OwnedNode node) {
        boolean kick;
        List<CompletableFuture<Void>> ready;
        lock.lock();
        try {
            if (!lifecycle.isStarted() || runnerStopped) {
                return false; // closed or stopped meanwhile
            }
            if (node.equals(leaderNode)) {
                return true; // told early
            }
            kick = revokeLocked(); // an early word for a node whose session then went
            leaderNode = node;
            kick |= announce(elected);
            changed.signalAll();
            ready = drainAwaiting();
        } finally {
            lock.unlock();
        }
        if (kick) {
            listenerExecutor.kick();
        }
        completeLater(ready, null);
        return true;
    }

    /** Under the lock: the awaitAsync() futures waiting so far, taken out. */
    private List<CompletableFuture<Void>> drainAwaiting() {
        if (awaiting.isEmpty()) {
            return List.of();
        }
        List<CompletableFuture<Void>> out = new ArrayList<>(awaiting);
        awaiting.clear();
        return out;
    }

    /** Completes the futures on the recipes' executor (never on the event thread, never under the lock). */
    private void completeLater(List<CompletableFuture<Void>> futures, RuntimeException failure) {
        if (futures.isEmpty()) {
            return;
        }
        Runnable done = () -> futures.forEach(f -> {
            if (failure == null) {
                f.complete(null);
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

    private void revoke() {
        boolean kick;
        lock.lock();
        try {
            kick = revokeLocked();
        } finally {
            lock.unlock();
        }
        if (kick) {
            listenerExecutor.kick();
        }
    }

    /** Under the lock: ends leadership, if any, and queues onRevoked; true if the listener executor needs a kick. */
    private boolean revokeLocked() {
        if (leaderNode == null) {
            return false;
        }
        leaderNode = null;
        changed.signalAll();
        return announce(revoked);
    }

    /**
     * Under the lock: queues a call of these listeners (none if there are none: no thread is woken for nothing);
     * true if the listener executor needs a kick.
     */
    private boolean announce(Listeners<Consumer<LeaderLatch>> listeners) {
        return !listeners.isEmpty() && listenerExecutor.enqueue(() -> listeners.callAll(l -> l.accept(this)));
    }

    /** Sends the delete of a node we lead or queue with, once: close() and the runner may both ask. */
    private CompletableFuture<Void> resignation(OwnedNode node) {
        return resigned.computeIfAbsent(node, election::resign);
    }

    /** True while this participant leads with certainty (its current session owns the leading node). */
    public boolean isLeader() {
        OwnedNode n = leaderNode;
        return n != null && n.owner() == client.sessionId() && client.state().isConnected();
    }

    /**
     * Waits until this participant leads. Honours interrupts ({@link ZkException.Interrupted}, flag kept); throws
     * IllegalStateException if the latch is or gets closed.
     */
    public void await() {
        if (!await(Deadline.NONE)) {
            throw new IllegalStateException("latch closed");
        }
    }

    /**
     * As {@link #await()} without a thread: completes (on the recipes' executor) once this participant leads, at once
     * if it does; fails with IllegalStateException if the latch is or gets closed. Cancel it to stop waiting.
     */
    public CompletableFuture<Void> awaitAsync() {
        CompletableFuture<Void> f = new CompletableFuture<>();
        boolean now;
        lock.lock();
        try {
            if (lifecycle.isClosed()) {
                f.completeExceptionally(new IllegalStateException("latch closed"));
                return f;
            }
            now = isLeader();
            if (!now) {
                awaiting.add(f);
            }
        } finally {
            lock.unlock();
        }
        if (now) {
            completeLater(List.of(f), null);
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

    /** Waits at most {@code timeout} for leadership; false on timeout or if the latch is closed. */
    public boolean await(Duration timeout) {
        return await(Deadline.after(timeout));
    }

    private boolean await(Deadline deadline) {
        lock.lock();
        try {
            while (!isLeader()) {
                if (lifecycle.isClosed() || deadline.expired()) {
                    return false;
                }
                if (deadline.isBounded()) {
                    changed.awaitNanos(deadline.remainingNanos());
                } else {
                    changed.await();
                }
            }
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ZkException.Interrupted(path, "interrupted while waiting for leadership");
        } finally {
            lock.unlock();
        }
    }

    /** The fencing token of the current leadership (the czxid of the leading node), or -1 if not leader. */
    public long fencingToken() {
        OwnedNode n = leaderNode;
        return n != null && isLeader() ? n.czxid() : -1;
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

    /** Adds a listener called when this participant becomes leader. */
    public void addElectedListener(Consumer<LeaderLatch> listener) {
        elected.add(listener, null);
    }

    /** Adds a listener called when leadership ends or becomes uncertain. */
    public void addRevokedListener(Consumer<LeaderLatch> listener) {
        revoked.add(listener, null);
    }

    /**
     * Leaves the election (revoking leadership, deleting the node) and returns once the node is deleted (or after
     * a bounded wait while the connection is down; the delete goes on in the background). Idempotent.
     */
    @Override
    public void close() {
        if (!lifecycle.close()) {
            return;
        }
        OwnedNode leading;
        boolean kick;
        List<CompletableFuture<Void>> waiting;
        lock.lock();
        try {
            leading = leaderNode;
            kick = revokeLocked(); // isLeader() is false before the delete goes out: never two leaders
            changed.signalAll();
            waiting = drainAwaiting();
        } finally {
            lock.unlock();
        }
        completeLater(waiting, new IllegalStateException("latch closed"));
        if (leading != null) {
            resignation(leading); // the successor's wait starts ending now, not after our runner wakes up
        }
        if (kick) {
            listenerExecutor.kick();
        }
        client.removeConnectionStateListener(onConnection);
        Thread t = runner;
        if (t != null) {
            t.interrupt();
        }
        if (t != Thread.currentThread()) {
            // "stopped" covers the deletes the runner sent; ours is awaited as well in case it never saw it
            Cleanup.awaitQuietly(leading == null ? stopped
                    : CompletableFuture.allOf(stopped, resignation(leading)));
        }
    }

    @Override
    public String toString() {
        return "LeaderLatch[" + path + ", id=" + id + ", leader=" + isLeader() + "]";
    }
}
