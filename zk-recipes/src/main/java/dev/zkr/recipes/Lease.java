package dev.zkr.recipes;

import dev.zkr.client.ConnectionState;
import dev.zkr.client.ConnectionStateListener;
import dev.zkr.client.Stat;
import dev.zkr.client.ZkClient;
import dev.zkr.recipes.internal.Cleanup;
import dev.zkr.recipes.internal.OwnedNode;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiConsumer;

/**
 * The {@link LockLease} (or {@link SemaphoreLease}) of a node held through a {@link SequentialNodeQueue}; tracks the
 * connection.
 */
final class Lease implements SemaphoreLease {

    private final ZkClient client;
    private final SequentialNodeQueue queue;
    private final OwnedNode node;
    private final int permits;
    private final AtomicReference<LeaseState> state = new AtomicReference<>(LeaseState.HELD);
    private final Listeners<BiConsumer<LockLease, LeaseState>> listeners;
    private final ConnectionStateListener onConnection = this::connectionChanged;
    private volatile Revocation revocation; // null without a revocation listener

    private Lease(ZkClient client, SequentialNodeQueue queue, OwnedNode node, int permits, Executor executor) {
        this.client = client;
        this.queue = queue;
        this.node = node;
        this.permits = permits;
        this.listeners = new Listeners<>(executor);
    }

    /** A lease for a node just acquired; null (node released) if its session is already gone. */
    static Lease hold(ZkClient client, SequentialNodeQueue queue, OwnedNode node, Executor executor) {
        return hold(client, queue, node, 1, executor);
    }

    /** As {@link #hold(ZkClient, SequentialNodeQueue, OwnedNode, Executor)}, for a node of {@code permits}. */
    static Lease hold(ZkClient client, SequentialNodeQueue queue, OwnedNode node, int permits, Executor executor) {
        return hold(client, queue, node, permits, executor, null);
    }

    /**
     * As {@link #hold(ZkClient, SequentialNodeQueue, OwnedNode, int, Executor)}; with a revocation listener the
     * lease watches its node for requests (one made before it held is delivered too).
     */
    static Lease hold(ZkClient client, SequentialNodeQueue queue, OwnedNode node, int permits, Executor executor,
                      RevocationListener onRevocation) {
        Lease lease = new Lease(client, queue, node, permits, executor);
        if (onRevocation != null) {
            lease.revocation = Revocation.watch(client, node, lease, onRevocation, executor);
        }
        client.addConnectionStateListener(lease.onConnection);
        if (client.sessionId() != node.owner()) {
            lease.move(LeaseState.LOST);
            client.removeConnectionStateListener(lease.onConnection);
            lease.stopRevocation();
            return null;
        }
        if (!client.state().isConnected()) {
            lease.move(LeaseState.UNCERTAIN);
        }
        return lease;
    }

    private void connectionChanged(ZkClient c, ConnectionState s) {
        switch (s) {
            case SUSPENDED -> state.compareAndSet(LeaseState.HELD, LeaseState.UNCERTAIN);
            case LOST, CONNECTED -> {
                if (move(LeaseState.LOST)) {
                    client.removeConnectionStateListener(onConnection);
                }
                return;
            }
            case RECONNECTED -> verify();
        }
        if (s == ConnectionState.SUSPENDED && state.get() == LeaseState.UNCERTAIN) {
            listeners.fire(l -> l.accept(this, LeaseState.UNCERTAIN));
        }
    }

    /** After a reconnect: still ours if the node is there, owned by this session. Runs asynchronously. */
    private void verify() {
        if (client.sessionId() != node.owner()) {
            move(LeaseState.LOST);
            return;
        }
        client.existsAsync(node.path(), null).whenComplete((Stat stat, Throwable err) -> {
            if (err != null) {
                return; // still disconnected: stays uncertain until the next state change
            }
            if (stat != null && stat.ephemeralOwner() == node.owner() && client.sessionId() == node.owner()) {
                if (state.compareAndSet(LeaseState.UNCERTAIN, LeaseState.HELD)) {
                    listeners.fire(l -> l.accept(this, LeaseState.HELD));
                }
            } else {
                move(LeaseState.LOST);
            }
        });
    }

    /** Moves to a final state (LOST or RELEASED) unless already final; true if it moved. */
    private boolean move(LeaseState to) {
        while (true) {
            LeaseState cur = state.get();
            if (cur == LeaseState.LOST || cur == LeaseState.RELEASED) {
                return false;
            }
            if (state.compareAndSet(cur, to)) {
                listeners.fire(l -> l.accept(this, to));
                return true;
            }
        }
    }

    @Override
    public long fencingToken() {
        return node.czxid();
    }

    @Override
    public int permits() {
        return permits;
    }

    @Override
    public boolean isValid() {
        return state.get() == LeaseState.HELD && client.sessionId() == node.owner()
                && client.state().isConnected();
    }

    @Override
    public LeaseState state() {
        return state.get();
    }

    @Override
    public String nodePath() {
        return node.path();
    }

    @Override
    public void addStateListener(BiConsumer<LockLease, LeaseState> listener, Executor executor) {
        listeners.add(listener, executor);
    }

    @Override
    public void close() {
        LeaseState before = state.getAndSet(LeaseState.RELEASED);
        if (before == LeaseState.RELEASED) {
            return;
        }
        // the delete goes out first (a no-op for a node of an expired session): the next holder's wait is the
        // one that matters; the bookkeeping below overlaps with the round trip
        CompletableFuture<Void> deleted = queue.releaseAsync(node);
        client.removeConnectionStateListener(onConnection);
        if (before != LeaseState.LOST) {
            listeners.fire(l -> l.accept(this, LeaseState.RELEASED));
        }
        Cleanup.awaitQuietly(deleted);
        stopRevocation(); // the delete fired the watch, unless it could not be sent yet
    }

    private void stopRevocation() {
        Revocation r = revocation;
        if (r != null) {
            r.stop();
        }
    }

    @Override
    public String toString() {
        return "LockLease[" + node.path() + ", token=" + node.czxid() + ", " + state.get() + "]";
    }
}
