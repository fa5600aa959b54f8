/**
 * Internal, not API: the parts of {@link dev.zkr.recipes.DoubleBarrier} (enter, leave with its looks and watches,
 * the last one out), behind {@link dev.zkr.recipes.barrier.Barrier}, the one public class. Users import
 * {@code dev.zkr.recipes.DoubleBarrier}.
 */
package dev.zkr.recipes.barrier;
