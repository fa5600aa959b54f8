package dev.zkr.apache.recipes;

import dev.zkr.recipes.CounterSuite;
import dev.zkr.recipes.RecipeBackend;

/** The Counter suite on Apache ZooKeeper. */
class ApacheCounterTest extends CounterSuite {
    @Override
    protected RecipeBackend createBackend() {
        return new ApacheBackend();
    }
}
