package dev.zkr.apache.recipes;

import dev.zkr.recipes.LeaderSelectorSuite;
import dev.zkr.recipes.RecipeBackend;

/** The LeaderSelector suite on Apache ZooKeeper. */
class ApacheLeaderSelectorTest extends LeaderSelectorSuite {
    @Override
    protected RecipeBackend createBackend() {
        return new ApacheBackend();
    }
}
