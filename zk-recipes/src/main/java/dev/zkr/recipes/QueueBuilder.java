package dev.zkr.recipes;

import dev.zkr.client.ZkClient;
import dev.zkr.recipes.queue.AckQueue;
import dev.zkr.recipes.queue.SimpleQueue;

import java.util.Objects;

/** Configures a queue; obtain one from {@link Recipes#queue(String)}. */
public final class QueueBuilder<T> {

    private final ZkClient client;
    private final String path;
    private final QueueSerializer<T> serializer;

    private QueueBuilder(ZkClient client, String path, QueueSerializer<T> serializer) {
        this.client = client;
        this.path = path;
        this.serializer = serializer;
    }

    static QueueBuilder<byte[]> bytes(ZkClient client, String path) {
        return new QueueBuilder<>(client, path, QueueSerializer.BYTES);
    }

    /** Typed items through a serializer. */
    public <U> QueueBuilder<U> serializer(QueueSerializer<U> serializer) {
        return new QueueBuilder<>(client, path, Objects.requireNonNull(serializer, "serializer"));
    }

    /** A queue whose take removes the item at once (each item to exactly one consumer, at most once). */
    public DistributedQueue<T> build() {
        return new SimpleQueue<>(client, path, serializer);
    }

    /** A queue with acknowledged delivery (items of consumers that die before the ack are redelivered). */
    public AcknowledgedQueue<T> buildAcknowledged() {
        return new AckQueue<>(client, path, serializer);
    }
}
