package dev.zkr.apache.recipes;

import dev.zkr.recipes.RecipeBackend;
import dev.zkr.recipes.RecipeProperties;

/** The recipe properties on Apache ZooKeeper. */
class ApacheRecipePropertiesTest extends RecipeProperties {
    @Override
    protected RecipeBackend createBackend() {
        return new ApacheBackend();
    }
}
