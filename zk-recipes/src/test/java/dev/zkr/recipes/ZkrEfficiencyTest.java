package dev.zkr.recipes;

/** Round trips per recipe operation on zkr. */
class ZkrEfficiencyTest extends EfficiencySuite {
    @Override
    protected RecipeBackend createBackend() {
        return ZkrBackend.start();
    }

    @Override
    protected boolean eventsCarryData() {
        return true;
    }
}
