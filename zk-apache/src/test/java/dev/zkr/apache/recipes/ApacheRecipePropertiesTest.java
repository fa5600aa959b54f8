package dev.zkr.apache.recipes;

import dev.zkr.recipes.RecipeBackend;
import dev.zkr.recipes.RecipeProperties;
import dev.zkr.recipes.ScaledTries;

/**
 * The recipe properties on Apache ZooKeeper (an embedded server, restarted and expiring sessions on demand), with
 * 1/25 of zkr's tries: an Apache client takes about 2 s to get a new session or to reconnect after a restart (zkr's
 * well under 0.5 s), so one try costs several times a zkr try (3 tries per property took 110 s in all, 2 tries 61 s,
 * still the slowest class of the build), and zk-recipes already runs the full default on zkr. The share follows
 * {@code jqwik.tries.default}, so {@code -Plong} runs 20 tries per property here.
 */
@ScaledTries(1)
class ApacheRecipePropertiesTest extends RecipeProperties {
    @Override
    protected RecipeBackend createBackend() {
        return new ApacheBackend();
    }
}
