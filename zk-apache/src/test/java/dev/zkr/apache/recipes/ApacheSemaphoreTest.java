package dev.zkr.apache.recipes;

import dev.zkr.recipes.RecipeBackend;
import dev.zkr.recipes.SemaphoreSuite;

/** The semaphore suite on Apache ZooKeeper. */
class ApacheSemaphoreTest extends SemaphoreSuite {
    @Override
    protected RecipeBackend createBackend() {
        return new ApacheBackend();
    }
}
