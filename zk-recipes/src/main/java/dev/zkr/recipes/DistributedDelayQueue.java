package dev.zkr.recipes;

import java.time.Duration;

/**
 * A {@link DistributedQueue} whose items are taken no earlier than their due time, counted on the server's clock
 * (its transaction time, the {@code mtime} it stamps on writes), never the client's: a producer learns the server's
 * time from a write to the queue node and puts "server time + delay" into the item's name; a consumer takes an item
 * only once the server's time, learnt the same way after its listing, has reached it, and otherwise waits (a local
 * monotonic timer, or a new item) before asking the server again. Due items are taken earliest due first, FIFO
 * among equal due times. Obtain one from {@code recipes.queue(path).delay()}.
 */
public interface DistributedDelayQueue<T> extends DistributedQueue<T> {

    /**
     * Adds an item due {@code delay} after the server's time now, exactly once, as {@link #offer(Object)}.
     *
     * @throws IllegalArgumentException if the delay is negative
     */
    void offer(T item, Duration delay);

    /** Adds an item that is due at once. */
    @Override
    void offer(T item);
}
