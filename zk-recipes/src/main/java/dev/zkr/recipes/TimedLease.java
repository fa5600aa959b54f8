package dev.zkr.recipes;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * The lease of a {@link LeasedLock}: valid while held, connected and within its time. The time runs from when the
 * last successful renewal was <em>sent</em> (monotonic clock), so the holder believes less than the others grant
 * it. When it runs out the state turns {@link LeaseState#EXPIRED} (state listeners are told) and the next waiter
 * may take over; {@link #renew()} brings it back if nobody has. Once taken over, a renewal finds the node gone and
 * the lease is {@link LeaseState#LOST}.
 */
public interface TimedLease extends LockLease {

    /**
     * Renews the lease: the lease's time starts again from now. True if renewed; false if it cannot be: taken over,
     * session lost, released, or the connection is down (then the state is left as it is; try again).
     */
    boolean renew();

    /** As {@link #renew()} without blocking; completes on the recipes' executor. */
    CompletableFuture<Boolean> renewAsync();

    /** The time this holder may still act as the holder: zero unless {@link #isValid()}. */
    Duration remaining();
}
