package dev.zkr.recipes;

/** The recipe properties on zkr. */
class ZkrRecipePropertiesTest extends RecipeProperties {
    @Override
    protected RecipeBackend createBackend() {
        return ZkrBackend.start();
    }
}
