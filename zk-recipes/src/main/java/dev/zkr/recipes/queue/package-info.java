/**
 * Internal, not API: the machinery of {@link dev.zkr.recipes.DistributedQueue} and
 * {@link dev.zkr.recipes.AcknowledgedQueue} (the shared take loop and item cache, one claim strategy per queue).
 * {@code SimpleQueue} and {@code AckQueue} are public only for {@link dev.zkr.recipes.QueueBuilder}. Users import
 * {@code dev.zkr.recipes}.
 */
package dev.zkr.recipes.queue;
