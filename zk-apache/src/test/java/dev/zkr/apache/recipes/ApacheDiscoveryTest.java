package dev.zkr.apache.recipes;

import dev.zkr.recipes.DiscoverySuite;
import dev.zkr.recipes.RecipeBackend;

/** The service discovery suite on Apache ZooKeeper. */
class ApacheDiscoveryTest extends DiscoverySuite {
    @Override
    protected RecipeBackend createBackend() {
        return new ApacheBackend();
    }
}
