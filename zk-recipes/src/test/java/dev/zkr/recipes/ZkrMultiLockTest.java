package dev.zkr.recipes;

/** The multi-lock suite on zkr. */
class ZkrMultiLockTest extends MultiLockSuite {
    @Override
    protected RecipeBackend createBackend() {
        return ZkrBackend.start();
    }
}
