package dev.zkr.apache.recipes;

import dev.zkr.recipes.RecipeBackend;
import dev.zkr.recipes.RecipeProperties;
import net.jqwik.api.PropertyDefaults;

/**
 * The recipe properties on Apache ZooKeeper, with few tries by default: Apache sessions are slower to expire and
 * renew than the in-JVM zkr server, and zk-recipes already runs the full default on zkr.
 */
@PropertyDefaults(tries = 4)
class ApacheRecipePropertiesTest extends RecipeProperties {
    @Override
    protected RecipeBackend createBackend() {
        return new ApacheBackend();
    }
}
