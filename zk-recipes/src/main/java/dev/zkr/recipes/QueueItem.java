package dev.zkr.recipes;

/**
 * An item claimed from an {@link AcknowledgedQueue}. {@link #ack()} removes it from the queue; {@link #release()}
 * (or {@link #close()} without an ack) gives it back for redelivery.
 */
public interface QueueItem<T> extends AutoCloseable {

    T value();

    /** The item's node name (unique, ordered by enqueue). */
    String id();

    /**
     * Acknowledges the item: it leaves the queue for good. Returns false if the claim was lost meanwhile (session
     * expired), in which case the item is, or will be, delivered again. Idempotent.
     */
    boolean ack();

    /** Gives the item back to the queue without acknowledging it. No-op after ack. */
    void release();

    /** Releases the item unless it was acknowledged. */
    @Override
    void close();
}
