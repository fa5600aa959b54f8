package dev.zkr.recipes;

/** The Counter suite on zkr. */
class ZkrCounterTest extends CounterSuite {
    @Override
    protected RecipeBackend createBackend() {
        return ZkrBackend.start();
    }
}
