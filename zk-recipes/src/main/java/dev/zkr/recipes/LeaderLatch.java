package dev.zkr.recipes;

import dev.zkr.client.ConnectionState;
import dev.zkr.client.ConnectionStateListener;
import dev.zkr.client.ZkClient;
import dev.zkr.client.ZkException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

/**
 * A leader election participant. Build one with {@link Recipes#leaderLatch(String)}. Fair mode queues
 * ephemeral-sequential nodes and leadership follows arrival order; unfair mode races for one ephemeral node.
 *
 * <p>Leadership is claimed only through a node owned by the client's current session. A suspended connection
 * revokes leadership (it is uncertain: {@link #isLeader()} is false and onRevoked runs); if the same session
 * reconnects and still leads, leadership comes back (onElected again, same fencing token). After session expiry
 * the latch competes again with a new node (unless built with {@code rejoinAfterLost(false)}).
 */
public final class LeaderLatch implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(LeaderLatch.class);
    private static final long CLOSE_WAIT_MS = 30_000;

    private final ZkClient client;
    private final String path;
    private final String id;
    private final Election election;
    private final boolean rejoinAfterLost;
    private final Executor executor;
    private final Listeners<Consumer<LeaderLatch>> elected;
    private final Listeners<Consumer<LeaderLatch>> revoked;
    private final Lifecycle lifecycle = new Lifecycle("LeaderLatch");
    private final LinkedBlockingQueue<ConnectionState> events = new LinkedBlockingQueue<>();
    private final ConnectionStateListener onConnection = this::connectionChanged;
    private final CompletableFuture<Void> stopped = new CompletableFuture<>();
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private volatile OwnedNode leaderNode; // non-null while leading
    private volatile Thread runner;

    LeaderLatch(ZkClient client, String path, String id, Election election, boolean rejoinAfterLost,
                Executor executor, Executor listenerExecutor,
                Consumer<LeaderLatch> onElected, Consumer<LeaderLatch> onRevoked) {
        this.client = client;
        this.path = path;
        this.id = id;
        this.election = election;
        this.rejoinAfterLost = rejoinAfterLost;
        this.executor = executor;
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
                node = election.elect(node);
                if (!lifecycle.isStarted()) {
                    break;
                }
                becomeLeader(node);
                awaitTrouble(node);
                revoke();
                Connection.awaitConnected(client, Deadline.NONE);
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
            revoke();
            if (node != null) {
                election.resign(node);
            }
            election.leave();
            runner = null;
            stopped.complete(null);
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
        lock.lock();
        try {
            changed.signalAll(); // isLeader() depends on the connection: waiters re-check
        } finally {
            lock.unlock();
        }
    }

    private void becomeLeader(OwnedNode node) {
        lock.lock();
        try {
            leaderNode = node;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
        elected.fire(l -> l.accept(this));
    }

    private void revoke() {
        boolean was;
        lock.lock();
        try {
            was = leaderNode != null;
            leaderNode = null;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
        if (was) {
            revoked.fire(l -> l.accept(this));
        }
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

    /** Leaves the election (revoking leadership, deleting the node). Idempotent. */
    @Override
    public void close() {
        if (!lifecycle.close()) {
            return;
        }
        client.removeConnectionStateListener(onConnection);
        Thread t = runner;
        if (t != null) {
            t.interrupt();
        }
        lock.lock();
        try {
            changed.signalAll();
        } finally {
            lock.unlock();
        }
        if (t != Thread.currentThread()) {
            Connection.awaitQuietly(stopped.orTimeout(CLOSE_WAIT_MS, TimeUnit.MILLISECONDS));
        }
    }

    @Override
    public String toString() {
        return "LeaderLatch[" + path + ", id=" + id + ", leader=" + isLeader() + "]";
    }
}
