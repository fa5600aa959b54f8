package dev.zkr.recipes;

/** The semaphore suite on zkr. */
class ZkrSemaphoreTest extends SemaphoreSuite {
    @Override
    protected RecipeBackend createBackend() {
        return ZkrBackend.start();
    }
}
