package dev.zkr.apache.recipes;

import dev.zkr.recipes.LockSuite;
import dev.zkr.recipes.RecipeBackend;

/** The lock suite on Apache ZooKeeper. */
class ApacheLockTest extends LockSuite {
    @Override
    protected RecipeBackend createBackend() {
        return new ApacheBackend();
    }
}
