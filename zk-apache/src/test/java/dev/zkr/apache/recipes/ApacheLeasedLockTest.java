package dev.zkr.apache.recipes;

import dev.zkr.recipes.LeasedLockSuite;
import dev.zkr.recipes.RecipeBackend;

/** The leased lock suite on Apache ZooKeeper. */
class ApacheLeasedLockTest extends LeasedLockSuite {
    @Override
    protected RecipeBackend createBackend() {
        return new ApacheBackend();
    }
}
