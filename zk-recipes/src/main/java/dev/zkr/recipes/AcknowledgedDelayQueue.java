package dev.zkr.recipes;

import java.time.Duration;

/**
 * An {@link AcknowledgedQueue} whose items are claimed no earlier than their due time on the server's clock, as in
 * {@link DistributedDelayQueue}. Obtain one from {@code recipes.queue(path).delay().buildAcknowledged()}.
 */
public interface AcknowledgedDelayQueue<T> extends AcknowledgedQueue<T> {

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
