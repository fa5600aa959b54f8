package dev.zkr.recipes;

/** The asynchronous lock suite on zkr. */
class ZkrAsyncLockTest extends AsyncLockSuite {
    @Override
    protected RecipeBackend createBackend() {
        return ZkrBackend.start();
    }
}
