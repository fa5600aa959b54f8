package dev.zkr.client;

/**
 * Which watches {@link ZkClient#removeWatches} removes, as ZooKeeper's {@code Watcher.WatcherType}: each persistent
 * kind is its own type. (Before {@link #PERSISTENT_RECURSIVE} existed, {@link #PERSISTENT} removed both kinds.)
 */
public enum WatcherType {
    /** Child watches (one-shot getChildren watches). */
    CHILDREN,
    /** Data watches (one-shot getData and exists watches). */
    DATA,
    /** Persistent watches ({@link AddWatchMode#PERSISTENT}), not persistent-recursive ones. */
    PERSISTENT,
    /** Every kind. */
    ANY,
    /** Persistent-recursive watches ({@link AddWatchMode#PERSISTENT_RECURSIVE}). Appended: the wire keeps ordinals. */
    PERSISTENT_RECURSIVE;

    /** The type that removes watches added with this mode. */
    public static WatcherType of(AddWatchMode mode) {
        return mode == AddWatchMode.PERSISTENT_RECURSIVE ? PERSISTENT_RECURSIVE : PERSISTENT;
    }
}
