package dev.zkr.recipes;

/** The tree cache suite on zkr. */
class ZkrTreeCacheTest extends TreeCacheSuite {
    @Override
    protected RecipeBackend createBackend() {
        return ZkrBackend.start();
    }
}
