package dev.zkr.recipes;

import dev.zkr.client.ClientSupport;
import dev.zkr.client.ConnectionState;
import dev.zkr.client.ConnectionStateListener;
import dev.zkr.client.Stat;
import dev.zkr.client.ZkClient;
import dev.zkr.client.ZkException;
import dev.zkr.recipes.internal.Cleanup;
import dev.zkr.recipes.internal.OwnedNode;
import dev.zkr.recipes.internal.Retries;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiConsumer;

/**
 * The {@link TimedLease} of a node held through the leased lock's queue. A renewal is a {@code setData} of the node:
 * the server stamps it with its time ({@code mtime}), from which the waiter behind judges the lease; this side
 * counts the lease from when the renewal was sent ({@link System#nanoTime()}), less {@link #drift}, so its view ends
 * first. The stored state is HELD, UNCERTAIN, LOST or RELEASED; EXPIRED is HELD past its time.
 */
final class TimedNodeLease implements TimedLease {

    private static final byte[] NO_DATA = new byte[0];

    private final ZkClient client;
    private final SequentialNodeQueue queue;
    private final OwnedNode node;
    private final long grantNanos; // what this holder believes a renewal gives it: the lease less the drift
    private final Executor executor;
    private final AtomicReference<LeaseState> state = new AtomicReference<>(LeaseState.HELD);
    private final AtomicLong validUntil = new AtomicLong(); // nanoTime
    private final AtomicLong timers = new AtomicLong(); // the current expiry timer's number
    private final Listeners<BiConsumer<LockLease, LeaseState>> listeners;
    private final ConnectionStateListener onConnection = this::connectionChanged;
    private volatile long heldSince; // nanoTime when the first renewal's answer came (for tests)
    private volatile long releasedAt = Long.MAX_VALUE; // nanoTime when close() began (for tests)

    private TimedNodeLease(ZkClient client, SequentialNodeQueue queue, OwnedNode node, Duration lease,
                           Executor executor) {
        this.client = client;
        this.queue = queue;
        this.node = node;
        this.grantNanos = lease.toNanos() - drift(lease).toNanos();
        this.executor = executor;
        this.listeners = new Listeners<>(executor);
    }

    /**
     * The holder's allowance for its clock running slower than the server's: 1% of the lease plus 1 ms. (The
     * waiter's side needs none for the server's millisecond stamps: it takes over only when the server's time is
     * strictly past the renewal's stamp plus the lease.)
     */
    static Duration drift(Duration lease) {
        return lease.dividedBy(100).plusMillis(1);
    }

    /**
     * Starts holding a node just acquired: its first renewal (which also wakes the waiter behind, so that it
     * starts judging the lease). Completes with the lease, or with null if the node is gone (taken over before the
     * renewal, or its session expired): the caller queues again.
     */
    static CompletableFuture<TimedNodeLease> start(ZkClient client, SequentialNodeQueue queue, OwnedNode node,
                                                   Duration lease, Executor executor) {
        TimedNodeLease l = new TimedNodeLease(client, queue, node, lease, executor);
        CompletableFuture<TimedNodeLease> out = new CompletableFuture<>();
        l.first(out);
        return out;
    }

    private void first(CompletableFuture<TimedNodeLease> out) {
        if (client.sessionId() != node.owner()) {
            out.complete(null);
            return;
        }
        long sent = System.nanoTime();
        CompletableFuture<Stat> renewed;
        try {
            renewed = client.setDataAsync(node.path(), NO_DATA, -1);
        } catch (RuntimeException e) {
            out.completeExceptionally(e);
            return;
        }
        renewed.whenComplete((stat, err) -> {
            if (err == null) {
                validUntil.set(sent + grantNanos);
                heldSince = System.nanoTime();
                client.addConnectionStateListener(onConnection);
                if (client.sessionId() != node.owner()) {
                    client.removeConnectionStateListener(onConnection);
                    out.complete(null);
                    return;
                }
                if (!client.state().isConnected()) {
                    state.set(LeaseState.UNCERTAIN);
                }
                schedule();
                executor.execute(() -> out.complete(this));
                return;
            }
            RuntimeException cause = ClientSupport.unwrap(err);
            if (cause instanceof ZkException.ConnectionLoss || cause instanceof ZkException.OperationTimeout) {
                Retries.whenConnected(client).thenRun(() -> first(out)); // the node stays ours while the session lives
            } else if (cause instanceof ZkException.NoNode || cause instanceof ZkException.SessionExpired) {
                out.complete(null);
            } else {
                out.completeExceptionally(cause);
            }
        });
    }

    @Override
    public boolean renew() {
        return ClientSupport.await(renewAsync());
    }

    @Override
    public CompletableFuture<Boolean> renewAsync() {
        LeaseState s = state.get();
        if (s == LeaseState.LOST || s == LeaseState.RELEASED || client.sessionId() != node.owner()) {
            return CompletableFuture.completedFuture(false);
        }
        long sent = System.nanoTime();
        CompletableFuture<Stat> renewed;
        try {
            renewed = client.setDataAsync(node.path(), NO_DATA, -1); // only this holder writes its node
        } catch (RuntimeException e) {
            return CompletableFuture.completedFuture(false);
        }
        return renewed.handleAsync((stat, err) -> {
            if (err == null) {
                boolean wasExpired = state() == LeaseState.EXPIRED;
                validUntil.accumulateAndGet(sent + grantNanos, Math::max);
                schedule();
                if (wasExpired && state() == LeaseState.HELD) {
                    listeners.fire(l -> l.accept(this, LeaseState.HELD));
                }
                return state.get() == LeaseState.HELD || state.get() == LeaseState.UNCERTAIN;
            }
            RuntimeException cause = ClientSupport.unwrap(err);
            if (cause instanceof ZkException.NoNode || cause instanceof ZkException.SessionExpired) {
                move(LeaseState.LOST); // taken over (or the session went)
            }
            return false;
        }, executor);
    }

    /** Tells the listeners when the time runs out (a new timer per renewal; older ones find they are stale). */
    private void schedule() {
        long number = timers.incrementAndGet();
        long delay = Math.max(0, validUntil.get() - System.nanoTime());
        CompletableFuture.delayedExecutor(delay, TimeUnit.NANOSECONDS, executor).execute(() -> {
            if (timers.get() == number && state() == LeaseState.EXPIRED) {
                listeners.fire(l -> l.accept(this, LeaseState.EXPIRED));
            }
        });
    }

    private void connectionChanged(ZkClient c, ConnectionState s) {
        switch (s) {
            case SUSPENDED -> {
                if (state.compareAndSet(LeaseState.HELD, LeaseState.UNCERTAIN)) {
                    listeners.fire(l -> l.accept(this, LeaseState.UNCERTAIN));
                }
            }
            case LOST, CONNECTED -> move(LeaseState.LOST);
            case RECONNECTED -> verify();
            default -> { }
        }
    }

    /** After a reconnect: still ours if the node is there, owned by this session (its time may have run out). */
    private void verify() {
        if (client.sessionId() != node.owner()) {
            move(LeaseState.LOST);
            return;
        }
        client.existsAsync(node.path(), null).whenComplete((stat, err) -> {
            if (err != null) {
                return; // still disconnected: stays uncertain until the next state change
            }
            if (stat != null && stat.ephemeralOwner() == node.owner() && client.sessionId() == node.owner()) {
                if (state.compareAndSet(LeaseState.UNCERTAIN, LeaseState.HELD)) {
                    LeaseState now = state();
                    listeners.fire(l -> l.accept(this, now));
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
                client.removeConnectionStateListener(onConnection);
                if (to == LeaseState.LOST) {
                    listeners.fire(l -> l.accept(this, to));
                }
                return true;
            }
        }
    }

    @Override
    public long fencingToken() {
        return node.czxid();
    }

    @Override
    public boolean isValid() {
        return state() == LeaseState.HELD && client.sessionId() == node.owner() && client.state().isConnected();
    }

    @Override
    public LeaseState state() {
        LeaseState s = state.get();
        return s == LeaseState.HELD && System.nanoTime() - validUntil.get() >= 0 ? LeaseState.EXPIRED : s;
    }

    @Override
    public Duration remaining() {
        long left = validUntil.get() - System.nanoTime();
        return isValid() && left > 0 ? Duration.ofNanos(left) : Duration.ZERO;
    }

    /**
     * The last monotonic time ({@link System#nanoTime()}) at which this holder believed it held, as far as known now:
     * the end of its lease, or the start of its release if earlier (for tests).
     */
    long believedUntilNanos() {
        return Math.min(validUntil.get(), releasedAt);
    }

    /** When this holder began to believe it holds (for tests). */
    long heldSinceNanos() {
        return heldSince;
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
        if (state.get() != LeaseState.RELEASED) {
            releasedAt = Math.min(releasedAt, System.nanoTime());
        }
        LeaseState before = state.getAndSet(LeaseState.RELEASED);
        if (before == LeaseState.RELEASED) {
            return;
        }
        CompletableFuture<Void> deleted = queue.releaseAsync(node);
        client.removeConnectionStateListener(onConnection);
        timers.incrementAndGet();
        if (before != LeaseState.LOST) {
            listeners.fire(l -> l.accept(this, LeaseState.RELEASED));
        }
        Cleanup.awaitQuietly(deleted);
    }

    @Override
    public String toString() {
        return "TimedLease[" + node.path() + ", token=" + node.czxid() + ", " + state() + "]";
    }
}
