package dev.zkr.recipes;

import java.time.Duration;
import java.util.Optional;

/**
 * A FIFO queue (items are persistent-sequential nodes, taken in enqueue order). Each item goes to exactly one
 * consumer: the claim deletes the item atomically with a note in the consumer's own node, so a claim whose
 * response was lost is resolved, not guessed. At-most-once: an item taken by a consumer that dies before
 * processing it is lost; use {@link QueueBuilder#buildAcknowledged()} for redelivery. A take that overlaps no other
 * consumer's take gets the oldest item; a take that loses a race to an overlapping one may get one of the oldest four.
 */
public interface DistributedQueue<T> extends AutoCloseable {

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

    /** Removes and returns the head, waiting for one. Honours interrupts ({@link dev.zkr.client.ZkException.Interrupted}). */
    T take();

    /**
     * Like {@link #take()} but waits at most {@code timeout}; empty on timeout, also while disconnected. One
     * exception: a claim whose response was lost is decided (through the consumer node) before the poll returns,
     * which may take until the connection is back, at most twice the session timeout; undecidable, it fails with
     * ConnectionLoss.
     */
    Optional<T> poll(Duration timeout);

    /**
     * As {@link #take()} without a thread: the future completes (on the recipes' executor) with the item once one
     * is taken; no thread is held while it waits (a watch, a timer, the connection's return wake it). The
     * failure semantics are the blocking take's. Cancelling the future (or completing it any other way, e.g. a
     * timeout) gives up: the watch is removed, and an item taken by an attempt already under way is kept for this
     * consumer's next take (offered again at close). Close of the queue fails it with IllegalStateException (on
     * the closing thread).
     */
    java.util.concurrent.CompletableFuture<T> takeAsync();

    /** Items currently in the queue (a snapshot count). */
    int size();

    /** Stops this consumer: blocked takes fail with IllegalStateException; no watch is left. Idempotent. */
    @Override
    void close();
}
