package dev.zkr.recipes;

import net.jqwik.api.lifecycle.AfterContainer;

/**
 * The recipe properties on a 3-server zkr ensemble, with the ensemble faults ({@code KILL_LEADER},
 * {@code KILL_FOLLOWER}, {@code PARTITION}, and takes, drains and increments across a failover) among the others,
 * at 1/25 of the single server's tries (a try costs several times as much: every write waits for a quorum's fsync,
 * faults wait for an election) on one ensemble for the class; {@code -Plong} runs 20 tries per property.
 */
@ScaledTries(1)
class ZkrEnsembleRecipePropertiesTest extends RecipeProperties {

    /** One ensemble for every property of the class (each starts on fresh paths with fresh clients). */
    private static ZkrEnsembleBackend ensemble;

    @Override
    protected RecipeBackend createBackend() {
        synchronized (ZkrEnsembleRecipePropertiesTest.class) {
            if (ensemble == null) {
                ensemble = ZkrEnsembleBackend.startShared();
            }
            return ensemble;
        }
    }

    @AfterContainer
    static void stopEnsemble() {
        synchronized (ZkrEnsembleRecipePropertiesTest.class) {
            if (ensemble != null) {
                ensemble.shutdown();
                ensemble = null;
            }
        }
    }

    @Override
    protected boolean ensembleFaults() {
        return true;
    }
}
