package dev.zkr.apache.recipes;

import dev.zkr.recipes.PersistentNodeSuite;
import dev.zkr.recipes.RecipeBackend;

/** The PersistentNode suite on Apache ZooKeeper. */
class ApachePersistentNodeTest extends PersistentNodeSuite {
    @Override
    protected RecipeBackend createBackend() {
        return new ApacheBackend();
    }
}
