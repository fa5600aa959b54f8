package dev.zkr.apache.recipes;

import dev.zkr.recipes.QueueSuite;
import dev.zkr.recipes.RecipeBackend;

/** The Queue suite on Apache ZooKeeper. */
class ApacheQueueTest extends QueueSuite {
    @Override
    protected RecipeBackend createBackend() {
        return new ApacheBackend();
    }
}
