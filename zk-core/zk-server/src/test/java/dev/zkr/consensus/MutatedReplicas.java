package dev.zkr.consensus;

/**
 * Test-only: a {@link Replica} with one of the consensus {@link Mutations} switched on, for simulators outside this
 * package (the whole-server simulator's membership kill rows, docs/testing.md).
 */
public final class MutatedReplicas {

    private MutatedReplicas() {
    }

    /** A replica as {@link Replica#Replica(ReplicaConfig, LogView, Meta)} builds it, with mutation {@code name}. */
    public static Replica of(ReplicaConfig config, LogView log, Meta meta, String name) {
        return new Replica(config, log, meta, Mutations.of(name));
    }
}
