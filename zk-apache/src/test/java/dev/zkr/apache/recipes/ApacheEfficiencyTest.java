package dev.zkr.apache.recipes;

import dev.zkr.recipes.EfficiencySuite;
import dev.zkr.recipes.RecipeBackend;

/** Round trips per recipe operation on Apache ZooKeeper. */
class ApacheEfficiencyTest extends EfficiencySuite {
    @Override
    protected RecipeBackend createBackend() {
        return new ApacheBackend();
    }
}
