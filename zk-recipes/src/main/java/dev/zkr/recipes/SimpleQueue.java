package dev.zkr.recipes;

import java.time.Duration;
import java.util.Optional;

/** {@link DistributedQueue} over a {@link QueueCore} in claim-by-delete mode. */
final class SimpleQueue<T> implements DistributedQueue<T> {

    private final QueueCore core;
    private final QueueSerializer<T> serializer;

    SimpleQueue(QueueCore core, QueueSerializer<T> serializer) {
        this.core = core;
        this.serializer = serializer;
    }

    @Override
    public void offer(T item) {
        core.offer(serializer.serialize(item));
    }

    @Override
    public T take() {
        return serializer.deserialize(core.take(Deadline.NONE).data());
    }

    @Override
    public Optional<T> poll(Duration timeout) {
        QueueCore.Claimed c = core.take(Deadline.after(timeout));
        return c == null ? Optional.empty() : Optional.of(serializer.deserialize(c.data()));
    }

    @Override
    public int size() {
        return core.size();
    }

    @Override
    public void close() {
        core.close();
    }

    @Override
    public String toString() {
        return "DistributedQueue[" + core.path() + "]";
    }
}
