package dev.zkr.tree;

import dev.zkr.client.Stat;

import java.util.List;

/**
 * One znode, kept small because the tree holds millions (docs/architecture.md, "The tree in memory"): 56 bytes with its
 * object header, plus one array holding its name and data ({@link NodeBytes}) and its slot in the parent's
 * {@link ChildSet}. The path is not stored: a node is found by walking names from the root. cversion and pzxid live
 * in the ChildSet, which exists only for nodes that have had children (for the others cversion is 0 and pzxid equals
 * czxid) and then also holds the packed bytes; aversion lives in the shared ACL entry ({@link AclTable}); the
 * ephemeral owner, the TTL and the container flag exist only in the subclasses that need them. All mutable state is
 * guarded by the node's monitor, so readers see data and stat of the same version. Only the apply thread mutates
 * nodes.
 */
class Node {
    static final byte[] EMPTY = new byte[0];

    /** The packed name and data, or the {@link ChildSet} that holds them once the node has one. */
    private Object body;
    /**
     * The node's ACL and aversion, shared with every node of the same pair ({@link AclTable}); set by the tree when
     * it creates the node, null once the node is removed from the tree, so late readers treat it as missing.
     */
    AclTable.Entry acl;
    long czxid;
    long mzxid;
    long ctime;
    long mtime;
    int version;

    Node(byte[] packed) {
        this.body = packed;
    }

    private Node(byte[] packed, long zxid, long time) {
        this.body = packed;
        this.czxid = zxid;
        this.mzxid = zxid;
        this.ctime = time;
        this.mtime = time;
    }

    /** The root: empty name and data, zeroed stat. */
    static Node root() {
        return new Node(NodeBytes.pack(EMPTY, EMPTY));
    }

    /** A new node as created by the txn with this zxid and time ({@code packed}: name and data, NodeBytes). */
    static Node create(byte[] packed, long zxid, long time, long ephemeralOwner, boolean container, long ttlMs) {
        if (ttlMs > 0) {
            return new Ttl(packed, zxid, time, ttlMs);
        }
        if (ephemeralOwner != 0) {
            return new Ephemeral(packed, zxid, time, ephemeralOwner, container);
        }
        return container ? new Container(packed, zxid, time) : new Node(packed, zxid, time);
    }

    long ephemeralOwner() {
        return 0;
    }

    /** The TTL of a TTL node in milliseconds; 0 for every other node. */
    long ttlMs() {
        return 0;
    }

    boolean container() {
        return false;
    }

    boolean deleted() {
        return acl == null;
    }

    int aversion() {
        return acl == null ? 0 : acl.aversion;
    }

    /** The packed name and data ({@link NodeBytes}). */
    byte[] packed() {
        Object b = body; // read once: the snapshot thread and ChildSet probes read it without this node's monitor
        return b instanceof ChildSet c ? c.packed : (byte[]) b;
    }

    /** The node's name (the last path component; empty for the root). */
    String name() {
        return NodeBytes.name(packed());
    }

    /** A copy of the data (null if the node's data is null). */
    byte[] data() {
        return NodeBytes.data(packed());
    }

    void setData(byte[] data) {
        byte[] packed = NodeBytes.withData(packed(), data);
        if (body instanceof ChildSet c) {
            c.packed = packed;
        } else {
            body = packed; // the same name: a racing reader of the name sees it in either array
        }
    }

    /** The children, or null if the node never had any (nor a child-related stat change). */
    ChildSet children() {
        Object b = body;
        return b instanceof ChildSet c ? c : null;
    }

    /** The child named {@code path[from, to)}, or null; under the node's monitor. */
    Node child(String path, int from, int to) {
        return body instanceof ChildSet c ? c.get(path, from, to) : null;
    }

    int cversion() {
        return body instanceof ChildSet c ? c.cversion : 0;
    }

    long pzxid() {
        return body instanceof ChildSet c ? c.pzxid : czxid;
    }

    /** The ACL (the open ACL until the tree set one). */
    java.util.List<dev.zkr.client.Acl> acls() {
        return acl == null ? dev.zkr.client.Acls.OPEN_UNSAFE : acl.acls;
    }

    /** The children holder, created on demand (its pzxid starts at czxid, as for a node without one). */
    ChildSet kids() {
        if (body instanceof ChildSet c) {
            return c;
        }
        ChildSet c = new ChildSet(czxid, (byte[]) body);
        body = c;
        return c;
    }

    /** Drops an empty ChildSet that holds nothing but the defaults (as if the node never had one). */
    void dropDefaultKids() {
        if (body instanceof ChildSet c && c.cversion == 0 && c.pzxid == czxid && c.size() == 0) {
            body = c.packed;
        }
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
        return new Stat(czxid, mzxid, pzxid(), ctime, mtime, version, 2 * cversion() - kids, aversion(),
                ephemeralOwner(), NodeBytes.dataLength(packed()), kids);
    }

    int numChildren() {
        return body instanceof ChildSet c ? c.size() : 0;
    }

    synchronized List<String> childNames() {
        return body instanceof ChildSet c ? c.names() : List.of();
    }

    /** A persistent container node: no extra field. */
    static final class Container extends Node {
        Container(byte[] packed, long zxid, long time) {
            super(packed, zxid, time);
        }

        @Override
        boolean container() {
            return true;
        }
    }

    /**
     * A TTL node: persistent, its TTL the only extra field. Its Stat reports {@code ephemeralOwner} 0, as ZooKeeper
     * reports it to clients (ZooKeeper keeps the TTL encoded in that field internally).
     */
    static final class Ttl extends Node {
        private final long ttlMs;

        Ttl(byte[] packed, long zxid, long time, long ttlMs) {
            super(packed, zxid, time);
            this.ttlMs = ttlMs;
        }

        @Override
        long ttlMs() {
            return ttlMs;
        }
    }

    /** An ephemeral node: the owner (and a container flag, which ZooKeeper never sets on one) are the extra fields. */
    static final class Ephemeral extends Node {
        private final long owner;
        private final boolean container;

        Ephemeral(byte[] packed, long zxid, long time, long owner, boolean container) {
            super(packed, zxid, time);
            this.owner = owner;
            this.container = container;
        }

        @Override
        long ephemeralOwner() {
            return owner;
        }

        @Override
        boolean container() {
            return container;
        }
    }
}
