package dev.zkr.recipes;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * A fair, herd-free lock whose ownership ends after a lease unless the holder renews it: for holders that may
 * stall (a long GC pause, stuck I/O) while their session lives on. The lease is judged on the server's clock (the
 * {@code mtime} the server gives the holder's node at each renewal); the waiter next in line takes over once the
 * server's time has passed the last renewal plus the lease, by deleting the holder's node if it was not renewed
 * meanwhile. The holder's own view is conservative: its {@link TimedLease} counts the lease from when each renewal
 * was <em>sent</em>, on its monotonic clock, less a drift allowance, so it stops believing it holds before anyone
 * can take over. The {@link TimedLease#fencingToken()} of the next holder is strictly greater: a store that keeps
 * the largest token it has seen refuses a late write of the stalled holder once the next one has written.
 */
public interface LeasedLock {

    /**
     * Waits until the lock is held with a fresh lease. Honours interrupts ({@link dev.zkr.client.ZkException.Interrupted},
     * flag kept; the queued node is removed).
     */
    TimedLease acquire();

    /** Waits at most {@code timeout}; empty on timeout (the queued node is removed). */
    Optional<TimedLease> tryAcquire(Duration timeout);

    /**
     * As {@link #acquire()} without a thread: the future completes (on the recipes' executor) once the lock is held
     * and its first lease granted. Cancel it to give up (the queued node is deleted). Same failure semantics as
     * {@link DistributedLock#acquireAsync()}.
     */
    CompletableFuture<TimedLease> acquireAsync();

    /** As {@link #tryAcquire(Duration)} without a thread: empty once {@code timeout} passes. */
    CompletableFuture<Optional<TimedLease>> tryAcquireAsync(Duration timeout);

    /** The lease every holder of this lock object gets per renewal. */
    Duration lease();

    /** The lock's path. */
    String path();
}
