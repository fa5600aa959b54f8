package dev.zkr.tree;

import dev.zkr.client.WatchedEvent;

/**
 * A change produced by {@link DataTree#apply} that may fire watches, in the order ZooKeeper fires them.
 * {@link WatchTable#trigger} turns these into per-session deliveries.
 *
 * @param path the node the event is about
 * @param type NODE_CREATED, NODE_DELETED, NODE_DATA_CHANGED or NODE_CHILDREN_CHANGED
 * @param zxid the zxid of the txn that caused it
 */
public record WatchTrigger(String path, WatchedEvent.Type type, long zxid) {

    /** The event a watcher receives for this trigger. */
    public WatchedEvent event() {
        return new WatchedEvent(type, path, zxid);
    }
}
