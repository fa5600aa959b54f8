package dev.zkr.recipes;

/** The ordered-queue suite on zkr. */
class ZkrOrderedQueueTest extends OrderedQueueSuite {
    @Override
    protected RecipeBackend createBackend() {
        return ZkrBackend.start();
    }
}
