package dev.zkr.recipes;

/** The leased lock suite on zkr. */
class ZkrLeasedLockTest extends LeasedLockSuite {
    @Override
    protected RecipeBackend createBackend() {
        return ZkrBackend.start();
    }
}
