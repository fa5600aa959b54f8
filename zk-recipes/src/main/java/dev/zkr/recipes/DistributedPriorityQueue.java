package dev.zkr.recipes;

/**
 * A {@link DistributedQueue} whose takes return the item with the lowest priority number first, FIFO among equal
 * priorities (the priority is part of the item's node name, so a consumer orders items from a listing). Every take
 * lists the queue: it sees every item offered before it began. A take that loses a race to an overlapping take may
 * get one of the first four items, as in the FIFO queue. Obtain one from {@code recipes.queue(path).priority()}.
 */
public interface DistributedPriorityQueue<T> extends DistributedQueue<T> {

    /** Adds an item with this priority (lower numbers are taken first), exactly once, as {@link #offer(Object)}. */
    void offer(T item, int priority);

    /** Adds an item with priority 0. */
    @Override
    void offer(T item);
}
