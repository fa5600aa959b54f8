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

    /**
     * Adds an item at the tail, exactly once, even if the response is lost: an offer that returns normally was
     * applied once, and no second copy is ever made. On a client with exactly-once writes (zkr's) the offer is a
     * plain create of the item; on others (Apache ZooKeeper) the producer's ledger node {@code <path>-offers/<uuid>}
     * records the offer atomically with the item's create, and offers through one queue object are serialized (see
     * the module README).
     *
     * @throws dev.zkr.client.ZkException.ConnectionLoss if the response was lost and the producer's session expired
     *         before it could read its ledger (with exactly-once writes: the request timed out, or the session was
     *         lost while it was in flight), and the item is not in the queue: it may have been applied and
     *         consumed already, or never applied — the item may or may not be queued, and it is not offered again
     */
    void offer(T item);

    /** Claims the first unclaimed item, waiting for one. Honours interrupts. */
    QueueItem<T> take();

    /**
     * Like {@link #take()} but waits at most {@code timeout}; empty on timeout, also while disconnected. A claim
     * left behind by a poll that gave up (its response lost) is taken by this consumer's next take or released once
     * the connection is back, never held until the session ends.
     */
    Optional<QueueItem<T>> poll(Duration timeout);

    /**
     * As {@link #take()} without a thread: the future completes (on the recipes' executor) with the item once one
     * is claimed; no thread is held while it waits (a watch, a timer, the connection's return wake it). The
     * failure semantics are the blocking take's. Cancelling the future (or completing it any other way, e.g. a
     * timeout) gives up: the watch is removed, and an item claimed by an attempt already under way is
     * released. Close of the queue fails it with IllegalStateException (on the closing thread).
     */
    java.util.concurrent.CompletableFuture<QueueItem<T>> takeAsync();

    /** Items currently in the queue, claimed or not (a snapshot count). */
    int size();

    /** Stops this consumer; unacknowledged items it holds are released. Idempotent. */
    @Override
    void close();
}
