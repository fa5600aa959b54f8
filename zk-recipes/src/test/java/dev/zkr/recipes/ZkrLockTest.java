package dev.zkr.recipes;

/** The lock suite on zkr. */
class ZkrLockTest extends LockSuite {
    @Override
    protected RecipeBackend createBackend() {
        return ZkrBackend.start();
    }
}
