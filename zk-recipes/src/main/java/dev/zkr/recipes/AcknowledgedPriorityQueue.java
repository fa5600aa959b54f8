package dev.zkr.recipes;

/**
 * An {@link AcknowledgedQueue} whose takes claim the unclaimed item with the lowest priority number first, FIFO
 * among equal priorities; ordered as {@link DistributedPriorityQueue}. Obtain one from
 * {@code recipes.queue(path).priority().buildAcknowledged()}.
 */
public interface AcknowledgedPriorityQueue<T> extends AcknowledgedQueue<T> {

    /** Adds an item with this priority (lower numbers are taken first), exactly once, as {@link #offer(Object)}. */
    void offer(T item, int priority);

    /** Adds an item with priority 0. */
    @Override
    void offer(T item);
}
