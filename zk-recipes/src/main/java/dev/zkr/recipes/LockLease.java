package dev.zkr.recipes;

import java.util.concurrent.Executor;
import java.util.function.BiConsumer;

/**
 * Ownership of a held lock: an object, not a thread, so it may be handed to executors and futures. Closing it
 * releases the lock (idempotent). While the connection is suspended the lease is {@link LeaseState#UNCERTAIN}
 * ({@link #isValid()} false); after session expiry it is {@link LeaseState#LOST} for good.
 */
public interface LockLease extends AutoCloseable {

    /**
     * A token that strictly increases across successive holders of the same lock path (the czxid of the
     * holder's node); pass it to downstream systems so they can reject a stale holder.
     */
    long fencingToken();

    /** True while the lease is held with certainty (state {@link LeaseState#HELD}). */
    boolean isValid();

    /** The lease's current state. */
    LeaseState state();

    /** The path of the lock node that backs this lease. */
    String nodePath();

    /**
     * Calls the listener with (lease, new state) on every state change, on the given executor (null: the
     * recipes' executor).
     */
    void addStateListener(BiConsumer<LockLease, LeaseState> listener, Executor executor);

    /** Releases the lock. Idempotent; never throws for a lease that is already lost. */
    @Override
    void close();
}
