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

    /** Waits at most {@code timeout}; empty on timeout (the queued node is removed). */
    Optional<LockLease> tryAcquire(Duration timeout);

    /** The lock's path. */
    String path();
}
