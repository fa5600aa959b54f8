package dev.zkr.recipes;

/** The Barrier suite on zkr. */
class ZkrBarrierTest extends BarrierSuite {
    @Override
    protected RecipeBackend createBackend() {
        return ZkrBackend.start();
    }
}
