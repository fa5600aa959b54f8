package dev.zkr.client;

/** How a znode is created, with ZooKeeper's meaning. */
public enum CreateMode {
    /** Lives until deleted. */
    PERSISTENT(false, false, false),
    /** Deleted when the session that created it ends; cannot have children. */
    EPHEMERAL(true, false, false),
    /** Persistent, its name suffixed with the parent's 10-digit sequence counter. */
    PERSISTENT_SEQUENTIAL(false, true, false),
    /** Ephemeral and sequential. */
    EPHEMERAL_SEQUENTIAL(true, true, false),
    /** Persistent, deleted by the server once it had children and the last one is gone. */
    CONTAINER(false, false, true, false),
    /**
     * Persistent with a time to live (ZooKeeper's TTL node): created with a TTL ({@link ZkClient#create(String,
     * byte[], CreateMode, java.util.List, java.time.Duration)}), deleted by the server once it has no children and
     * has not been modified (setData) for longer than the TTL.
     */
    PERSISTENT_WITH_TTL(false, false, false, true),
    /** A {@link #PERSISTENT_WITH_TTL} node with a sequence suffix. */
    PERSISTENT_SEQUENTIAL_WITH_TTL(false, true, false, true);

    /** The longest TTL a node may have, in milliseconds: ZooKeeper's (40 bits, about 34 years). */
    public static final long MAX_TTL_MS = 0xFF_FFFF_FFFFL;

    /**
     * Checks a TTL for this mode as the server does: a TTL mode needs 1..{@link #MAX_TTL_MS} ms; any other mode none.
     *
     * @throws IllegalArgumentException naming the problem
     */
    public void checkTtl(long ttlMs) {
        if (ttl && (ttlMs <= 0 || ttlMs > MAX_TTL_MS)) {
            throw new IllegalArgumentException("a TTL must be 1.." + MAX_TTL_MS + " ms, not " + ttlMs);
        }
        if (!ttl && ttlMs >= 0) {
            throw new IllegalArgumentException("a TTL is not valid for mode " + this);
        }
    }

    private final boolean ephemeral;
    private final boolean sequential;
    private final boolean container;
    private final boolean ttl;

    CreateMode(boolean ephemeral, boolean sequential, boolean container) {
        this(ephemeral, sequential, container, false);
    }

    CreateMode(boolean ephemeral, boolean sequential, boolean container, boolean ttl) {
        this.ephemeral = ephemeral;
        this.sequential = sequential;
        this.container = container;
        this.ttl = ttl;
    }

    public boolean isEphemeral() {
        return ephemeral;
    }

    public boolean isSequential() {
        return sequential;
    }

    public boolean isContainer() {
        return container;
    }

    /** Whether nodes of this mode are created with a TTL (and must be). */
    public boolean isTtl() {
        return ttl;
    }
}
