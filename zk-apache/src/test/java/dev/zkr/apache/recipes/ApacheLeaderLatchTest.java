package dev.zkr.apache.recipes;

import dev.zkr.recipes.LeaderLatchSuite;
import dev.zkr.recipes.RecipeBackend;

/** The LeaderLatch suite on Apache ZooKeeper. */
class ApacheLeaderLatchTest extends LeaderLatchSuite {
    @Override
    protected RecipeBackend createBackend() {
        return new ApacheBackend();
    }
}
