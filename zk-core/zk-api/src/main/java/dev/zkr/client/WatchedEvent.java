package dev.zkr.client;

/**
 * A node event delivered to a {@link Watcher}. Connection changes are not watch events: they reach
 * {@link ConnectionStateListener}s.
 *
 * @param type what happened
 * @param path the node it happened to
 * @param zxid the zxid of the transaction that caused it (-1 for watch-removed events)
 * @param data for NODE_CREATED and NODE_DATA_CHANGED of a persistent watch set with data
 *             ({@link ZkClient#addWatchAsync(String, AddWatchMode, boolean, Watcher)}): the node's data and Stat
 *             right after that transaction, as a {@code getData} would have read them then; null otherwise (other
 *             types, watches without data, a backend that cannot send it, a node deleted again in the same multi)
 */
public record WatchedEvent(Type type, String path, long zxid, NodeData data) {

    /** An event without the node's data. */
    public WatchedEvent(Type type, String path, long zxid) {
        this(type, path, zxid, null);
    }

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
