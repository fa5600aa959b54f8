package dev.zkr.client;

/**
 * The argument checks every {@link ZkClient} implementation makes before any I/O, so that both clients (the native
 * one and the Apache ZooKeeper adapter) fail the same way with the same typed exceptions. For client
 * implementations, not for application code.
 */
public final class RequestChecks {

    private static final byte[] EMPTY = new byte[0];

    private RequestChecks() {
    }

    /** Fails with {@link ZkException.BadArguments} naming {@code what} when the value is null. */
    public static <T> T required(T value, String path, String what) {
        if (value == null) {
            throw new ZkException.BadArguments(path, what + " is null");
        }
        return value;
    }

    /** Checks a create's mode and path (a sequential create's path may end with {@code /}); returns the path. */
    public static String create(String path, CreateMode mode) {
        return create(path, mode, -1);
    }

    /**
     * As {@link #create(String, CreateMode)} with a TTL in milliseconds (-1: none): a TTL mode needs one of
     * 1..{@link CreateMode#MAX_TTL_MS} ms, any other mode none, else BadArguments.
     */
    public static String create(String path, CreateMode mode, long ttlMs) {
        required(mode, path, "create mode");
        try {
            mode.checkTtl(ttlMs);
        } catch (IllegalArgumentException e) {
            throw new ZkException.BadArguments(path, e.getMessage());
        }
        return ZkPaths.validate(path, mode.isSequential());
    }

    /** Data as sent: null becomes empty; more than {@code maxDataSize} bytes fails with DataTooLarge. */
    public static byte[] data(String path, byte[] data, int maxDataSize) {
        if (data == null) {
            return EMPTY;
        }
        if (data.length > maxDataSize) {
            throw new ZkException.DataTooLarge(path, data.length + " bytes exceed the limit of " + maxDataSize);
        }
        return data;
    }

    /**
     * Checks an ACL before sending: non-null, not empty, no null entry (the server validates schemes, ids and
     * permission bits); returns it as an immutable list.
     */
    public static java.util.List<Acl> acls(String path, java.util.List<Acl> acls) {
        if (acls == null || acls.isEmpty()) {
            throw new ZkException.InvalidAcl(path, "empty ACL");
        }
        for (Acl a : acls) {
            if (a == null) {
                throw new ZkException.InvalidAcl(path, "null ACL entry");
            }
        }
        return java.util.List.copyOf(acls);
    }

    /**
     * Checks one operation of a multi; returns it with null data replaced by empty data. A read operation fails with
     * BadArguments (ZooKeeper's client refuses to mix reads and writes in one transaction too).
     */
    public static Op op(Op op, int maxDataSize) {
        required(op, null, "operation in multi");
        if (op.isRead()) {
            throw new ZkException.BadArguments(op.path(), "a read operation in a multi (use multiRead)");
        }
        if (op instanceof Op.Create c) {
            create(c.path(), c.mode(), c.ttlMs());
            byte[] data = data(c.path(), c.data(), maxDataSize);
            return data == c.data() ? c : new Op.Create(c.path(), data, c.mode(), c.acls(), c.ttlMs());
        }
        ZkPaths.validate(op.path());
        if (op instanceof Op.SetData s) {
            byte[] data = data(s.path(), s.data(), maxDataSize);
            return data == s.data() ? s : new Op.SetData(s.path(), data, s.version());
        }
        return op;
    }

    /** Checks one operation of a multiRead: a getData or getChildren with a valid path, else BadArguments. */
    public static Op readOp(Op op) {
        required(op, null, "operation in multiRead");
        if (!op.isRead()) {
            throw new ZkException.BadArguments(op.path(), "a write operation in a multiRead (use multi)");
        }
        ZkPaths.validate(op.path());
        return op;
    }
}
