package dev.zkr.tree;

import java.util.ArrayDeque;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;

/**
 * Changes prepared but not yet applied (ZooKeeper's outstandingChanges): the latest projected state per path,
 * released once the tree has applied the zxid that produced it. Not thread-safe: owned by {@link TxnPreparer}.
 */
final class PendingChanges {

    /** A projected node state; {@code record == null} means the node is (projected to be) deleted. */
    record Change(long zxid, String path, NodeRecord record) {
    }

    private final Map<String, Change> byPath = new HashMap<>();
    private final ArrayDeque<Change> queue = new ArrayDeque<>();

    Change get(String path) {
        return byPath.get(path);
    }

    void put(long zxid, String path, NodeRecord record) {
        Change c = new Change(zxid, path, record);
        byPath.put(path, c);
        queue.addLast(c);
    }

    /** Releases every change with a zxid up to this one (the tree now reflects them). */
    void applied(long zxid) {
        while (!queue.isEmpty() && queue.peekFirst().zxid() <= zxid) {
            Change c = queue.pollFirst();
            if (byPath.get(c.path()) == c) {
                byPath.remove(c.path());
            }
        }
    }

    Collection<Change> latest() {
        return byPath.values();
    }

    int size() {
        return byPath.size();
    }
}
