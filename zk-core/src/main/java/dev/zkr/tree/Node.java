package dev.zkr.tree;

import dev.zkr.client.Stat;

import java.util.List;

/**
 * One znode. The path string is the same instance as the tree map's key; the node's name is derived from it, so
 * names are not stored twice. All mutable state is guarded by the node's monitor, so a reader sees data and stat
 * of the same version. Only the apply thread mutates nodes.
 */
final class Node {
    static final byte[] EMPTY = new byte[0];

    final String path;
    byte[] data;
    long czxid;
    long mzxid;
    long pzxid;
    long ctime;
    long mtime;
    int version;
    int cversion;
    long ephemeralOwner;
    boolean container;
    /** Null until the node gets its first child. */
    ChildSet children;

    Node(String path) {
        this.path = path;
        this.data = EMPTY;
    }

    Node(String path, byte[] data, long zxid, long time, long ephemeralOwner, boolean container) {
        this.path = path;
        this.data = data;
        this.czxid = zxid;
        this.mzxid = zxid;
        this.pzxid = zxid;
        this.ctime = time;
        this.mtime = time;
        this.ephemeralOwner = ephemeralOwner;
        this.container = container;
    }

    synchronized Stat stat() {
        return statLocked();
    }

    Stat statLocked() {
        return new Stat(czxid, mzxid, pzxid, ctime, mtime, version, cversion, 0, ephemeralOwner, data.length,
                numChildren());
    }

    int numChildren() {
        return children == null ? 0 : children.size();
    }

    synchronized List<String> childNames() {
        return children == null ? List.of() : children.names();
    }

    void addChild(Node child) {
        if (children == null) {
            children = new ChildSet();
        }
        children.add(child);
    }

    void removeChild(String childPath) {
        if (children != null) {
            children.remove(childPath);
        }
    }
}
