package dev.zkr.recipes;

/**
 * Permits held from a {@link Semaphore}: an object, not a thread. Closing it gives the permits back (idempotent).
 * States and listeners are those of a {@link LockLease}: {@link LeaseState#UNCERTAIN} while the connection is
 * suspended, {@link LeaseState#LOST} for good after session expiry (the permits are then free for others).
 * {@link #fencingToken()} is the czxid of the lease node: unique, and increasing in arrival order, but several
 * leases are valid at once.
 */
public interface SemaphoreLease extends LockLease {

    /** How many permits this lease holds. */
    int permits();
}
