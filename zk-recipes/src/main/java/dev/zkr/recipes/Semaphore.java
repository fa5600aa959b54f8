package dev.zkr.recipes;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * A fair, herd-free counting semaphore (Curator's {@code InterProcessSemaphoreV2} with leases): every acquire
 * queues an ephemeral-sequential node naming the permits it asks for; the holders are the longest prefix of the
 * arrival order whose permits fit, so at most {@link #permits()} permits are held at once and waiters are served in
 * arrival order (a large request holds back smaller later ones). Every participant must use the same permit count.
 */
public interface Semaphore {

    /** Waits for one permit. Honours interrupts (the queued node is removed). */
    SemaphoreLease acquire();

    /** Waits for {@code permits} permits at once (1..{@link #permits()}). */
    SemaphoreLease acquire(int permits);

    /**
     * As {@link #acquire(int)}; the lease calls {@code onRevocation} each time someone asks the holders to give
     * their permits up with {@link #requestRevocation()} (cooperative, as for locks).
     */
    SemaphoreLease acquire(int permits, RevocationListener onRevocation);

    /**
     * Asks every current holder to give its permits up (written into each lease node: it outlives the requester).
     * Returns whether a holder was asked (false when nobody holds).
     */
    boolean requestRevocation();

    /** Waits at most {@code timeout} for one permit; empty on timeout. A zero timeout tries once, without waiting. */
    Optional<SemaphoreLease> tryAcquire(Duration timeout);

    /** Waits at most {@code timeout} for {@code permits} permits; empty on timeout (nothing is left queued). */
    Optional<SemaphoreLease> tryAcquire(int permits, Duration timeout);

    /**
     * As {@link #acquire(int)} without a thread (see {@link DistributedLock#acquireAsync()}): completes on the
     * recipes' executor once the permits are held; cancel it to give up (the queued node is deleted).
     */
    CompletableFuture<SemaphoreLease> acquireAsync(int permits);

    /** As {@link #acquireAsync(int)} for one permit. */
    default CompletableFuture<SemaphoreLease> acquireAsync() {
        return acquireAsync(1);
    }

    /** The number of permits. */
    int permits();

    /** The semaphore's path. */
    String path();
}
