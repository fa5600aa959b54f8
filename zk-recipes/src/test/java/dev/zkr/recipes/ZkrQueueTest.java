package dev.zkr.recipes;

/** The Queue suite on zkr. */
class ZkrQueueTest extends QueueSuite {
    @Override
    protected RecipeBackend createBackend() {
        return ZkrBackend.start();
    }
}
