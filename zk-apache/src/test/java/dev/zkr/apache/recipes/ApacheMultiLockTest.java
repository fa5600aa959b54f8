package dev.zkr.apache.recipes;

import dev.zkr.recipes.MultiLockSuite;
import dev.zkr.recipes.RecipeBackend;

/** The multi-lock suite on Apache ZooKeeper. */
class ApacheMultiLockTest extends MultiLockSuite {
    @Override
    protected RecipeBackend createBackend() {
        return new ApacheBackend();
    }
}
