package dev.zkr.apache.recipes;

import dev.zkr.recipes.LeasedLockProperties;
import dev.zkr.recipes.RecipeBackend;
import dev.zkr.recipes.ScaledTries;

/**
 * The leased lock properties on Apache ZooKeeper, at 3/25 of zkr's tries (one try at the default budget, about 19
 * under {@code -Plong}): an Apache client's reconnect after a restart or expiry takes seconds (8 tries took 40 s).
 */
@ScaledTries(3)
class ApacheLeasedLockPropertiesTest extends LeasedLockProperties {
    @Override
    protected RecipeBackend createBackend() {
        return new ApacheBackend();
    }
}
