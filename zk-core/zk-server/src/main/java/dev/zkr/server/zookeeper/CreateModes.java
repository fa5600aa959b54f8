package dev.zkr.server.zookeeper;

import dev.zkr.client.CreateMode;

/**
 * A create's flags (ZooKeeper's {@code CreateMode.toFlag}: 0 persistent, 1 ephemeral, 2 persistent sequential,
 * 3 ephemeral sequential, 4 container, 5 persistent with TTL, 6 persistent sequential with TTL) and opcode as zkr's
 * {@link CreateMode}, as ZooKeeper 3.9 treats them with {@code zookeeper.extendedTypesEnabled} on (zkr always has TTL
 * nodes): {@code create}/{@code create2} make a container flag a plain persistent node (their txn has no container
 * owner); {@code createContainer} makes a container of any other valid flag; a TTL flag outside {@code createTTL} is
 * BADARGUMENTS (it has no TTL), as is an unknown flag.
 */
final class CreateModes {

    private CreateModes() {
    }

    /** The mode for a create, create2 or createContainer with these flags; {@link Refusal} with the answer else. */
    static CreateMode of(int opcode, int flags) throws Refusal {
        switch (flags) {
            case 5, 6 -> throw new Refusal(ErrorCodes.BAD_ARGUMENTS, "a TTL mode without a TTL (use createTTL)");
            case 0, 1, 2, 3, 4 -> {
            }
            default -> throw new Refusal(ErrorCodes.BAD_ARGUMENTS, "invalid create flags " + flags);
        }
        if (opcode == OpCode.CREATE_CONTAINER) {
            if (flags == 2 || flags == 3) {
                // ZooKeeper would make a sequential container; zkr has no such mode
                throw new Refusal(ErrorCodes.UNIMPLEMENTED, "sequential containers are not supported");
            }
            return CreateMode.CONTAINER;
        }
        return switch (flags) {
            case 1 -> CreateMode.EPHEMERAL;
            case 2 -> CreateMode.PERSISTENT_SEQUENTIAL;
            case 3 -> CreateMode.EPHEMERAL_SEQUENTIAL;
            default -> CreateMode.PERSISTENT; // 0, and 4 outside createContainer
        };
    }

    /**
     * The mode of a createTTL: a TTL mode for flags 5 and 6 (the TTL's range is the server's to check); else refused
     * BADARGUMENTS, for an unknown flag or a mode without TTL (which ZooKeeper refuses for a TTL ≥ 0, and fails to
     * apply for a negative one).
     */
    static CreateMode ttl(int flags) throws Refusal {
        return switch (flags) {
            case 5 -> CreateMode.PERSISTENT_WITH_TTL;
            case 6 -> CreateMode.PERSISTENT_SEQUENTIAL_WITH_TTL;
            default -> throw new Refusal(ErrorCodes.BAD_ARGUMENTS, "createTTL with flags " + flags);
        };
    }

    /** A request the translator answers itself with a ZooKeeper error code. */
    static final class Refusal extends Exception {
        final int err;

        Refusal(int err, String why) {
            super(why, null, false, false);
            this.err = err;
        }
    }
}
