package dev.zkr.apache.recipes;

import dev.zkr.apache.ApacheZkClient;
import dev.zkr.recipes.RecipeBackend;
import dev.zkr.recipes.RecipeProperties;
import dev.zkr.recipes.ScaledTries;
import dev.zkr.recipes.ZkrEnsembleBackend;
import net.jqwik.api.lifecycle.AfterContainer;

/**
 * The recipe properties through {@link ApacheZkClient} on a 3-server zkr ensemble (ZooKeeper's client protocol on
 * zkr), with the ensemble faults (leader and follower kills, partitions), at the tries of
 * {@link ApacheRecipePropertiesTest}: an Apache client's reconnects cost the same seconds on either server. One
 * ensemble for the class, as zk-recipes' {@code ZkrEnsembleRecipePropertiesTest} runs the native client.
 * Under {@code -Plong} only (zk-apache's pom leaves it out of the default build, for its time).
 */
@ScaledTries(1)
class ApacheClientOnZkrRecipePropertiesTest extends RecipeProperties {

    private static ZkrEnsembleBackend ensemble;

    @Override
    protected RecipeBackend createBackend() {
        synchronized (ApacheClientOnZkrRecipePropertiesTest.class) {
            if (ensemble == null) {
                ensemble = ZkrEnsembleBackend.startShared(ApacheZkClient::connect);
            }
            return ensemble;
        }
    }

    @AfterContainer
    static void stopEnsemble() {
        synchronized (ApacheClientOnZkrRecipePropertiesTest.class) {
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
