package dev.zkr.apache.recipes;

import dev.zkr.recipes.TreeCacheSuite;
import dev.zkr.recipes.RecipeBackend;

/** The tree cache suite on Apache ZooKeeper. */
class ApacheTreeCacheTest extends TreeCacheSuite {
    @Override
    protected RecipeBackend createBackend() {
        return new ApacheBackend();
    }
}
