package dev.zkr.apache.recipes;

import dev.zkr.recipes.OrderedQueueSuite;
import dev.zkr.recipes.RecipeBackend;

/** The ordered-queue suite on Apache ZooKeeper. */
class ApacheOrderedQueueTest extends OrderedQueueSuite {
    @Override
    protected RecipeBackend createBackend() {
        return new ApacheBackend();
    }
}
