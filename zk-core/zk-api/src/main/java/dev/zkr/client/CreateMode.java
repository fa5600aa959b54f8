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
    CONTAINER(false, false, true);

    private final boolean ephemeral;
    private final boolean sequential;
    private final boolean container;

    CreateMode(boolean ephemeral, boolean sequential, boolean container) {
        this.ephemeral = ephemeral;
        this.sequential = sequential;
        this.container = container;
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
}
