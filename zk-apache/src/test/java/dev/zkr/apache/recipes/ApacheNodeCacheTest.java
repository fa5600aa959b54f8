package dev.zkr.apache.recipes;

import dev.zkr.recipes.NodeCacheSuite;
import dev.zkr.recipes.RecipeBackend;

/** The node cache suite on Apache ZooKeeper. */
class ApacheNodeCacheTest extends NodeCacheSuite {
    @Override
    protected RecipeBackend createBackend() {
        return new ApacheBackend();
    }
}
