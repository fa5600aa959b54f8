package dev.zkr.apache.recipes;

import dev.zkr.recipes.AsyncLockSuite;
import dev.zkr.recipes.RecipeBackend;

/** The asynchronous lock suite on Apache ZooKeeper. */
class ApacheAsyncLockTest extends AsyncLockSuite {
    @Override
    protected RecipeBackend createBackend() {
        return new ApacheBackend();
    }
}
