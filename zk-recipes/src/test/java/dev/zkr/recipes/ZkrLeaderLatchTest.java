package dev.zkr.recipes;

/** The LeaderLatch suite on zkr. */
class ZkrLeaderLatchTest extends LeaderLatchSuite {
    @Override
    protected RecipeBackend createBackend() {
        return ZkrBackend.start();
    }
}
