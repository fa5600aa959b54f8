package dev.zkr.apache.recipes;

import dev.zkr.recipes.RecipeBackend;
import dev.zkr.recipes.SimpleBarrierSuite;

/** The simple barrier suite on Apache ZooKeeper. */
class ApacheSimpleBarrierTest extends SimpleBarrierSuite {
    @Override
    protected RecipeBackend createBackend() {
        return new ApacheBackend();
    }
}
