package dev.zkr.apache.recipes;

import dev.zkr.recipes.RecipeBackend;
import dev.zkr.recipes.RecipeProperties;
import dev.zkr.recipes.ScaledTries;

/**
 * The recipe properties on Apache ZooKeeper (an embedded server, restarted and expiring sessions on demand), with
 * 4/25 of zkr's tries: Apache sessions are slower to expire and renew, and its restarts slower, than the in-JVM zkr
 * server, and zk-recipes already runs the full default on zkr. The share follows {@code jqwik.tries.default}, so
 * {@code -Plong} runs 80 tries per property here.
 */
@ScaledTries(4)
class ApacheRecipePropertiesTest extends RecipeProperties {
    @Override
    protected RecipeBackend createBackend() {
        return new ApacheBackend();
    }
}
