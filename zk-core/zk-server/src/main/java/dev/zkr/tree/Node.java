package dev.zkr.tree;

import dev.zkr.client.Stat;

import java.util.List;

/**
 * One znode, kept small because the tree holds millions: the path string is the same instance as the tree map's
 * key (names are derived from it, not stored); cversion and pzxid live in the {@link ChildSet}, which exists only
 * for nodes that have had children (for the others cversion is 0 and pzxid equals czxid); the ephemeral owner only
 * exists in {@link Ephemeral} nodes. All mutable state is guarded by the node's monitor, so readers see data and
 * stat of the same version. Only the apply thread mutates nodes.
 */
class Node {
    static final byte[] EMPTY = new byte[0];

    final String path;
    byte[] data;
    long czxid;
    long mzxid;
    long ctime;
    long mtime;
    int version;
    /** Number of ACL changes. */
    int aversion;
    /** The node's ACL, shared with every node of the same ACL ({@link AclTable}); set by the tree. */
    AclTable.Entry acl;
    boolean container;
    /** Set (under the monitor) when the node is removed from the tree, so late readers treat it as missing. */
    boolean deleted;
    /** Null until the node gets its first child (or a child-related stat change). */
    ChildSet children;

    Node(String path) {
        this.path = path;
        this.data = EMPTY;
    }

    private Node(String path, byte[] data, long zxid, long time, boolean container) {
        this.path = path;
        this.data = data;
        this.czxid = zxid;
        this.mzxid = zxid;
        this.ctime = time;
        this.mtime = time;
        this.container = container;
    }

    /** A new node as created by the txn with this zxid and time. */
    static Node create(String path, byte[] data, long zxid, long time, long ephemeralOwner, boolean container) {
        return create(path, data, zxid, time, ephemeralOwner, container, 0);
    }

    /** As above; {@code ttlMs > 0} makes a TTL node. */
    static Node create(String path, byte[] data, long zxid, long time, long ephemeralOwner, boolean container,
                       long ttlMs) {
        if (ttlMs > 0) {
            return new Ttl(path, data, zxid, time, ttlMs);
        }
        return ephemeralOwner == 0 ? new Node(path, data, zxid, time, container)
                : new Ephemeral(path, data, zxid, time, ephemeralOwner, container);
    }

    long ephemeralOwner() {
        return 0;
    }

    /** The TTL of a TTL node in milliseconds; 0 for every other node. */
    long ttlMs() {
        return 0;
    }

    int cversion() {
        return children == null ? 0 : children.cversion;
    }

    long pzxid() {
        return children == null ? czxid : children.pzxid;
    }

    /** The ACL (the open ACL until the tree set one). */
    java.util.List<dev.zkr.client.Acl> acls() {
        return acl == null ? dev.zkr.client.Acls.OPEN_UNSAFE : acl.acls;
    }

    /** The children holder, created on demand (its pzxid starts at czxid, as for a node without one). */
    ChildSet kids() {
        if (children == null) {
            children = new ChildSet(czxid);
        }
        return children;
    }

    synchronized Stat stat() {
        return statLocked();
    }

    /**
     * The client-visible Stat. Internally cversion counts child creations (it numbers sequential children); the Stat
     * reports, as ZooKeeper does, the number of child changes: every creation and every deletion
     * ({@code 2 * creations - children still present}).
     */
    Stat statLocked() {
        int kids = numChildren();
        return new Stat(czxid, mzxid, pzxid(), ctime, mtime, version, 2 * cversion() - kids, aversion, ephemeralOwner(),
                data == null ? 0 : data.length, kids);
    }

    int numChildren() {
        return children == null ? 0 : children.size();
    }

    synchronized List<String> childNames() {
        return children == null ? List.of() : children.names();
    }

    void addChild(Node child) {
        kids().add(child);
    }

    void removeChild(String childPath) {
        if (children != null) {
            children.remove(childPath);
        }
    }

    /**
     * A TTL node: persistent, its TTL the only extra field. Its Stat reports {@code ephemeralOwner} 0, as ZooKeeper
     * reports it to clients (ZooKeeper keeps the TTL encoded in that field internally).
     */
    static final class Ttl extends Node {
        private final long ttlMs;

        Ttl(String path, byte[] data, long zxid, long time, long ttlMs) {
            super(path, data, zxid, time, false);
            this.ttlMs = ttlMs;
        }

        @Override
        long ttlMs() {
            return ttlMs;
        }
    }

    /** An ephemeral node: the owner is the only extra field. */
    static final class Ephemeral extends Node {
        private final long owner;

        Ephemeral(String path, byte[] data, long zxid, long time, long owner, boolean container) {
            super(path, data, zxid, time, container);
            this.owner = owner;
        }

        @Override
        long ephemeralOwner() {
            return owner;
        }
    }
}
