package dev.zkr.recipes;

import java.time.Duration;
import java.util.Optional;

/**
 * A FIFO queue with acknowledged delivery: {@link #take()} claims the head with an ephemeral claim node and returns
 * a {@link QueueItem}; the item leaves the queue only on {@link QueueItem#ack()}. If the consumer releases it, or
 * dies (its session expires) before acknowledging, the item is delivered again. At-least-once: an item whose
 * consumer died after processing but before the ack is processed twice. Redelivered items may come after items
 * enqueued later.
 */
public interface AcknowledgedQueue<T> extends AutoCloseable {

    /** Adds an item at the tail (exactly once, even if the response is lost). */
    void offer(T item);

    /** Claims the first unclaimed item, waiting for one. Honours interrupts. */
    QueueItem<T> take();

    /**
     * Like {@link #take()} but waits at most {@code timeout}; empty on timeout, also while disconnected. A claim
     * left behind by a poll that gave up (its response lost) is taken by this consumer's next take or released once
     * the connection is back, never held until the session ends.
     */
    Optional<QueueItem<T>> poll(Duration timeout);

    /** Items currently in the queue, claimed or not (a snapshot count). */
    int size();

    /** Stops this consumer; unacknowledged items it holds are released. Idempotent. */
    @Override
    void close();
}
