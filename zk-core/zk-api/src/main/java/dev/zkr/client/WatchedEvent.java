package dev.zkr.client;

/**
 * A node event delivered to a {@link Watcher}. Connection changes are not watch events: they reach
 * {@link ConnectionStateListener}s.
 *
 * @param type what happened
 * @param path the node it happened to
 * @param zxid the zxid of the transaction that caused it (-1 for watch-removed events)
 */
public record WatchedEvent(Type type, String path, long zxid) {

    /** Event types, as in ZooKeeper. */
    public enum Type {
        NODE_CREATED,
        NODE_DELETED,
        NODE_DATA_CHANGED,
        NODE_CHILDREN_CHANGED,
        DATA_WATCH_REMOVED,
        CHILD_WATCH_REMOVED,
        PERSISTENT_WATCH_REMOVED
    }
}
