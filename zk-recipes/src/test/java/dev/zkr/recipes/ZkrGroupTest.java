package dev.zkr.recipes;

/** The Group suite on zkr. */
class ZkrGroupTest extends GroupSuite {
    @Override
    protected RecipeBackend createBackend() {
        return ZkrBackend.start();
    }
}
