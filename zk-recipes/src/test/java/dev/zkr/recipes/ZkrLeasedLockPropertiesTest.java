package dev.zkr.recipes;

/** The leased lock properties on zkr. */
class ZkrLeasedLockPropertiesTest extends LeasedLockProperties {
    @Override
    protected RecipeBackend createBackend() {
        return ZkrBackend.start();
    }
}
