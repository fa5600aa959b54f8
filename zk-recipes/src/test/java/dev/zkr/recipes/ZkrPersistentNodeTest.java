package dev.zkr.recipes;

/** The PersistentNode suite on zkr. */
class ZkrPersistentNodeTest extends PersistentNodeSuite {
    @Override
    protected RecipeBackend createBackend() {
        return ZkrBackend.start();
    }
}
