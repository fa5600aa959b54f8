/**
 * Internal, not API: the parts of {@link dev.zkr.recipes.DistributedCounter} (the freeze gate and the decoded value
 * node), public only for it. Users import {@code dev.zkr.recipes.DistributedCounter}.
 */
package dev.zkr.recipes.counter;
