package dev.zkr.recipes;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * A fair, herd-free distributed lock (ephemeral-sequential nodes, each waiter watching only its predecessor,
 * granted in arrival order). Not reentrant: every acquire queues a new node, so acquiring again before closing
 * the first lease waits for that lease. Ownership is the returned {@link LockLease}.
 */
public interface DistributedLock {

    /**
     * Waits until the lock is held. Honours interrupts ({@link dev.zkr.client.ZkException.Interrupted}, flag kept;
     * the queued node is removed).
     */
    LockLease acquire();

    /**
     * As {@link #acquire()}; the lease calls {@code onRevocation} (on the recipes' executor) each time someone
     * asks it to give the lock up with {@link #requestRevocation()}, including a request made before it held.
     */
    LockLease acquire(RevocationListener onRevocation);

    /** Waits at most {@code timeout}; empty on timeout (the queued node is removed). */
    Optional<LockLease> tryAcquire(Duration timeout);

    /** As {@link #tryAcquire(Duration)}, with a revocation listener as in {@link #acquire(RevocationListener)}. */
    Optional<LockLease> tryAcquire(Duration timeout, RevocationListener onRevocation);

    /**
     * As {@link #acquire()} without a thread: the future completes (on the recipes' executor) when the lock is held;
     * nothing blocks while it waits (each step is sent from the callback of the one before). Cancel the future to
     * give up: the queued node is deleted (also one whose create is still on its way). Same failure semantics as
     * {@link #acquire()}: it waits through lost connections, queues again after session expiry, and fails with
     * {@link dev.zkr.client.ZkException.Closed} when the client is closed.
     */
    CompletableFuture<LockLease> acquireAsync();

    /**
     * As {@link #tryAcquire(Duration)} without a thread: empty once {@code timeout} passes (the queued node is then
     * deleted). Cancelling the future gives up as {@link #acquireAsync()} does.
     */
    CompletableFuture<Optional<LockLease>> tryAcquireAsync(Duration timeout);

    /**
     * Asks the current holder (those an acquire of this lock would wait for) to give the lock up: the request is
     * written into the holder's node, so it outlives the requester and the holder's reconnects. Cooperative: a
     * holder without a listener, or one that ignores it, keeps the lock. Returns whether a holder was asked
     * (false on a free lock: then nothing is written).
     */
    boolean requestRevocation();

    /** The lock's path. */
    String path();
}
