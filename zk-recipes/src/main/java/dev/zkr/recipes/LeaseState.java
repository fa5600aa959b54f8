package dev.zkr.recipes;

/** What a {@link LockLease} (or leadership) knows about itself. */
public enum LeaseState {
    /** Held: the lock node exists and is owned by the current session. */
    HELD,
    /** The connection is suspended: the lease may have been lost; act as if not held until RECONNECTED. */
    UNCERTAIN,
    /** The session expired (or the node went): the lease is gone and never comes back. */
    LOST,
    /** Released by its holder. */
    RELEASED;

    /** True only for {@link #HELD}. */
    public boolean isValid() {
        return this == HELD;
    }
}
