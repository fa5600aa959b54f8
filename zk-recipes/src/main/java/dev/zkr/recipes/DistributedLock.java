package dev.zkr.recipes;

import java.time.Duration;
import java.util.Optional;

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
     * Asks the current holder (those an acquire of this lock would wait for) to give the lock up: the request is
     * written into the holder's node, so it outlives the requester and the holder's reconnects. Cooperative: a
     * holder without a listener, or one that ignores it, keeps the lock. Returns whether a holder was asked
     * (false on a free lock: then nothing is written).
     */
    boolean requestRevocation();

    /** The lock's path. */
    String path();
}
