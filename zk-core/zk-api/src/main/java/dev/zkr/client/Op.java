package dev.zkr.client;

/**
 * One operation of a {@link ZkClient#multi} transaction (create, delete, setData, check), or of a
 * {@link ZkClient#multiRead} (getData, getChildren). The two kinds do not mix: a multi with a read operation, or a
 * multiRead with a write, fails with {@link ZkException.BadArguments}.
 */
public sealed interface Op {

    /** The path the operation acts on. */
    String path();

    static Op create(String path, byte[] data, CreateMode mode) {
        return new Create(path, data, mode);
    }

    /** Create a node with this ACL. */
    static Op create(String path, byte[] data, CreateMode mode, java.util.List<Acl> acls) {
        return new Create(path, data, mode, acls);
    }

    /** Create a TTL node ({@link CreateMode#isTtl()}) with this ACL ({@code null}: open) and TTL. */
    static Op create(String path, byte[] data, CreateMode mode, java.util.List<Acl> acls, java.time.Duration ttl) {
        return new Create(path, data, mode, acls, ttl.toMillis());
    }

    static Op delete(String path, int version) {
        return new Delete(path, version);
    }

    static Op setData(String path, byte[] data, int version) {
        return new SetData(path, data, version);
    }

    static Op check(String path, int version) {
        return new Check(path, version);
    }

    /** Read a node's data and Stat, in a {@link ZkClient#multiRead}. */
    static Op getData(String path) {
        return new GetData(path);
    }

    /** Read a node's child names, in a {@link ZkClient#multiRead}. */
    static Op getChildren(String path) {
        return new GetChildren(path);
    }

    /** Whether this is a read operation (getData, getChildren), for {@link ZkClient#multiRead} only. */
    default boolean isRead() {
        return this instanceof GetData || this instanceof GetChildren;
    }

    /**
     * Create a node (data may be empty, never null) with an ACL ({@code null} = {@link Acls#OPEN_UNSAFE}) and, for
     * the TTL modes, a TTL in milliseconds ({@code -1}: none, as for every other mode).
     */
    record Create(String path, byte[] data, CreateMode mode, java.util.List<Acl> acls, long ttlMs) implements Op {
        public Create {
            acls = acls == null ? null : java.util.List.copyOf(acls);
        }

        /** Create a node without a TTL. */
        public Create(String path, byte[] data, CreateMode mode, java.util.List<Acl> acls) {
            this(path, data, mode, acls, -1);
        }

        /** Create an open node ({@link Acls#OPEN_UNSAFE}). */
        public Create(String path, byte[] data, CreateMode mode) {
            this(path, data, mode, null, -1);
        }
    }

    /** Delete a node if its version matches ({@code -1} = any). */
    record Delete(String path, int version) implements Op {
    }

    /** Set a node's data if its version matches ({@code -1} = any). */
    record SetData(String path, byte[] data, int version) implements Op {
    }

    /** Succeeds only if the node exists with this version ({@code -1} = any). */
    record Check(String path, int version) implements Op {
    }

    /** Read the node's data and Stat ({@link ZkClient#multiRead} only; answers {@link OpResult.GetDataResult}). */
    record GetData(String path) implements Op {
    }

    /** Read the node's child names ({@link ZkClient#multiRead} only; answers {@link OpResult.GetChildrenResult}). */
    record GetChildren(String path) implements Op {
    }
}
