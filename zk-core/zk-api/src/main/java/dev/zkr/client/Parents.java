package dev.zkr.client;

/** What {@code create} does about missing parent nodes. */
public enum Parents {
    /** Missing parents fail the create with {@link ZkException.NoNode}. */
    NONE,
    /** Missing parents are created as empty {@link CreateMode#PERSISTENT} nodes. */
    PERSISTENT,
    /** Missing parents are created as empty {@link CreateMode#CONTAINER} nodes (cleaned up by the server). */
    CONTAINER
}
