package dev.zkr.recipes;

/** The shared value suite on zkr. */
class ZkrSharedValueTest extends SharedValueSuite {
    @Override
    protected RecipeBackend createBackend() {
        return ZkrBackend.start();
    }
}
