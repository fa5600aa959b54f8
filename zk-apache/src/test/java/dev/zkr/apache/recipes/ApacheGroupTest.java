package dev.zkr.apache.recipes;

import dev.zkr.recipes.GroupSuite;
import dev.zkr.recipes.RecipeBackend;

/** The Group suite on Apache ZooKeeper. */
class ApacheGroupTest extends GroupSuite {
    @Override
    protected RecipeBackend createBackend() {
        return new ApacheBackend();
    }
}
