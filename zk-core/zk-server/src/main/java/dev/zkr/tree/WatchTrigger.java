package dev.zkr.tree;

import dev.zkr.client.Acl;

import java.util.List;
import java.util.Objects;

import dev.zkr.client.WatchedEvent;

/**
 * A change produced by {@link DataTree#apply} that may fire watches, in the order ZooKeeper fires them.
 * {@link WatchTable#trigger} turns these into per-session deliveries.
 *
 * @param path the node the event is about
 * @param type NODE_CREATED, NODE_DELETED, NODE_DATA_CHANGED or NODE_CHILDREN_CHANGED
 * @param zxid the zxid of the txn that caused it
 * @param acl  the ACL of the node at {@code path} when it fired (a deleted node's last one), or null: a session
 *             without READ in it does not get the event (ZooKeeper 3.9's ServerCnxn.process check). Not part of the
 *             trigger's identity ({@link #equals}).
 */
public record WatchTrigger(String path, WatchedEvent.Type type, long zxid, List<Acl> acl) {

    /** A trigger that every watcher gets (no ACL check). */
    public WatchTrigger(String path, WatchedEvent.Type type, long zxid) {
        this(path, type, zxid, null);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof WatchTrigger t && t.path.equals(path) && t.type == type && t.zxid == zxid;
    }

    @Override
    public int hashCode() {
        return Objects.hash(path, type, zxid);
    }

    @Override
    public String toString() {
        return "WatchTrigger[" + path + ", " + type + ", " + zxid + "]";
    }

    /** The event a watcher receives for this trigger. */
    public WatchedEvent event() {
        return new WatchedEvent(type, path, zxid);
    }
}
