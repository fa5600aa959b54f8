package dev.zkr.apache.recipes;

import dev.zkr.recipes.RecipeBackend;
import dev.zkr.recipes.SharedValueSuite;

/** The shared value suite on Apache ZooKeeper. */
class ApacheSharedValueTest extends SharedValueSuite {
    @Override
    protected RecipeBackend createBackend() {
        return new ApacheBackend();
    }
}
