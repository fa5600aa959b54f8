package dev.zkr.recipes;

/** The simple barrier suite on zkr. */
class ZkrSimpleBarrierTest extends SimpleBarrierSuite {
    @Override
    protected RecipeBackend createBackend() {
        return ZkrBackend.start();
    }
}
