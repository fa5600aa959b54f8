package dev.zkr.recipes;

/** The revocation suite on zkr. */
class ZkrRevocationTest extends RevocationSuite {
    @Override
    protected RecipeBackend createBackend() {
        return ZkrBackend.start();
    }
}
