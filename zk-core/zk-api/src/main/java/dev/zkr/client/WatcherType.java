package dev.zkr.client;

/** Which watches {@link ZkClient#removeWatches} removes. */
public enum WatcherType {
    /** Child watches (one-shot getChildren watches). */
    CHILDREN,
    /** Data watches (one-shot getData and exists watches). */
    DATA,
    /** Persistent and persistent-recursive watches. */
    PERSISTENT,
    /** Every kind. */
    ANY
}
