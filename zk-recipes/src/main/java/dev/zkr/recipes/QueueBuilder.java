package dev.zkr.recipes;

import dev.zkr.client.ZkClient;
import dev.zkr.recipes.queue.AckQueue;
import dev.zkr.recipes.queue.SimpleQueue;

import java.util.Objects;
import java.util.concurrent.Executor;

/** Configures a queue; obtain one from {@link Recipes#queue(String)}. */
public final class QueueBuilder<T> {

    private final ZkClient client;
    private final String path;
    private final QueueSerializer<T> serializer;
    private final Executor executor;

    private QueueBuilder(ZkClient client, String path, QueueSerializer<T> serializer, Executor executor) {
        this.client = client;
        this.path = path;
        this.serializer = serializer;
        this.executor = executor;
    }

    static QueueBuilder<byte[]> bytes(ZkClient client, String path, Executor executor) {
        return new QueueBuilder<>(client, path, QueueSerializer.BYTES, executor);
    }

    /** Typed items through a serializer. */
    public <U> QueueBuilder<U> serializer(QueueSerializer<U> serializer) {
        return new QueueBuilder<>(client, path, Objects.requireNonNull(serializer, "serializer"), executor);
    }

    /** A queue whose take removes the item at once (each item to exactly one consumer, at most once). */
    public DistributedQueue<T> build() {
        return SimpleQueue.fifo(client, path, serializer, executor);
    }

    /** A queue with acknowledged delivery (items of consumers that die before the ack are redelivered). */
    public AcknowledgedQueue<T> buildAcknowledged() {
        return AckQueue.fifo(client, path, serializer, executor);
    }

    /** A priority queue instead: lowest priority number first, FIFO among equals ({@link DistributedPriorityQueue}). */
    public OrderedQueueBuilder<DistributedPriorityQueue<T>, AcknowledgedPriorityQueue<T>> priority() {
        return new OrderedQueueBuilder<>(() -> SimpleQueue.priority(client, path, serializer, executor),
                () -> AckQueue.priority(client, path, serializer, executor));
    }

    /** A delay queue instead: items are taken once due on the server's clock ({@link DistributedDelayQueue}). */
    public OrderedQueueBuilder<DistributedDelayQueue<T>, AcknowledgedDelayQueue<T>> delay() {
        return new OrderedQueueBuilder<>(() -> SimpleQueue.delay(client, path, serializer, executor),
                () -> AckQueue.delay(client, path, serializer, executor));
    }

    /** An id queue instead: FIFO items with ids, removable by id ({@link DistributedIdQueue}). */
    public OrderedQueueBuilder<DistributedIdQueue<T>, AcknowledgedIdQueue<T>> ids() {
        return new OrderedQueueBuilder<>(() -> SimpleQueue.ids(client, path, serializer, executor),
                () -> AckQueue.ids(client, path, serializer, executor));
    }
}
