package dev.zkr.recipes;

/** What a {@link LockLease} (or leadership) knows about itself. */
public enum LeaseState {
    /** Held: the lock node exists and is owned by the current session. */
    HELD,
    /** The connection is suspended: the lease may have been lost; act as if not held until RECONNECTED. */
    UNCERTAIN,
    /** The session expired (or the node went): the lease is gone and never comes back. */
    LOST,
    /**
     * A {@link TimedLease} whose time ran out before it was renewed: a waiter may take the lock over at any moment;
     * act as if not held. {@link TimedLease#renew()} makes it {@link #HELD} again unless someone already took over.
     */
    EXPIRED,
    /** Released by its holder. */
    RELEASED;

    /** True only for {@link #HELD}. */
    public boolean isValid() {
        return this == HELD;
    }
}
