package dev.zkr.migrate;

import org.apache.zookeeper.server.EphemeralType;

/**
 * ZooKeeper's encoding of container and TTL nodes in {@code ephemeralOwner} ({@link EphemeralType}): a container has
 * {@code 0x8000000000000000}; a TTL node has the top byte {@code 0xff}, extended-type bits 40-55 zero, the TTL in the
 * low 40 bits. zkr keeps both as node kinds with an owner of 0.
 */
final class NodeTypes {
    static final long CONTAINER = EphemeralType.CONTAINER_EPHEMERAL_OWNER;
    private static final long EXTENDED_MASK = 0xff00000000000000L;
    private static final long EXTENDED_TYPE_BITS = 0x00ffff0000000000L;
    private static final long TTL_MASK = 0x000000ffffffffffL;

    private NodeTypes() {
    }

    static boolean isExtended(long owner) {
        return (owner & EXTENDED_MASK) == EXTENDED_MASK;
    }

    /** The TTL of an owner in the extended range, or -1 if its extended type is not TTL (unknown to ZooKeeper 3.9). */
    static long ttlOf(long owner) {
        if ((owner & EXTENDED_TYPE_BITS) != 0) {
            return -1;
        }
        return owner & TTL_MASK;
    }

    /** ZooKeeper's ephemeralOwner for a TTL node. */
    static long ttlOwner(long ttlMs) {
        if (ttlMs <= 0 || ttlMs > TTL_MASK) {
            throw new MigrationException("TTL " + ttlMs + " ms is outside ZooKeeper's range 1.." + TTL_MASK);
        }
        return EXTENDED_MASK | ttlMs;
    }
}
