package dev.zkr.recipes;

/** The service discovery suite on zkr. */
class ZkrDiscoveryTest extends DiscoverySuite {
    @Override
    protected RecipeBackend createBackend() {
        return ZkrBackend.start();
    }
}
