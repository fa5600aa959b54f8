/**
 * Internal, not API: the machinery of {@link dev.zkr.recipes.DistributedQueue},
 * {@link dev.zkr.recipes.AcknowledgedQueue} and the ordered queues (priority, delay, id): the shared take loop and
 * item cache, one claim strategy per queue, the ordered queues' keys in item names ({@code ItemOrder}) and the
 * thread-free take ({@code AsyncTake}). {@code SimpleQueue} and {@code AckQueue} are public only for
 * {@link dev.zkr.recipes.QueueBuilder}. Users import {@code dev.zkr.recipes}.
 */
package dev.zkr.recipes.queue;
