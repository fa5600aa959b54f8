package dev.zkr.recipes;

/**
 * The recipe properties on a 3-server zkr ensemble, with the ensemble faults ({@code KILL_LEADER},
 * {@code KILL_FOLLOWER}, {@code PARTITION}, and takes, drains and increments across a failover) among the others,
 * at 1/25 of the single server's tries (a try costs several times as much: every write waits for a quorum's fsync,
 * faults wait for an election); {@code -Plong} runs 20 tries per property.
 */
@ScaledTries(1)
class ZkrEnsembleRecipePropertiesTest extends RecipeProperties {
    @Override
    protected RecipeBackend createBackend() {
        return ZkrEnsembleBackend.start();
    }

    @Override
    protected boolean ensembleFaults() {
        return true;
    }
}
