package dev.zkr.recipes;

/** The node cache suite on zkr. */
class ZkrNodeCacheTest extends NodeCacheSuite {
    @Override
    protected RecipeBackend createBackend() {
        return ZkrBackend.start();
    }
}
