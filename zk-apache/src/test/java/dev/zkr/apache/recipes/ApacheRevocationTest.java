package dev.zkr.apache.recipes;

import dev.zkr.recipes.RecipeBackend;
import dev.zkr.recipes.RevocationSuite;

/** The revocation suite on Apache ZooKeeper. */
class ApacheRevocationTest extends RevocationSuite {
    @Override
    protected RecipeBackend createBackend() {
        return new ApacheBackend();
    }
}
