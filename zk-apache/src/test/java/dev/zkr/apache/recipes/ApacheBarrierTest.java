package dev.zkr.apache.recipes;

import dev.zkr.recipes.BarrierSuite;
import dev.zkr.recipes.RecipeBackend;

/** The Barrier suite on Apache ZooKeeper. */
class ApacheBarrierTest extends BarrierSuite {
    @Override
    protected RecipeBackend createBackend() {
        return new ApacheBackend();
    }
}
