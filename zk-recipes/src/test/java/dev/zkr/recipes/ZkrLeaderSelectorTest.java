package dev.zkr.recipes;

/** The LeaderSelector suite on zkr. */
class ZkrLeaderSelectorTest extends LeaderSelectorSuite {
    @Override
    protected RecipeBackend createBackend() {
        return ZkrBackend.start();
    }
}
