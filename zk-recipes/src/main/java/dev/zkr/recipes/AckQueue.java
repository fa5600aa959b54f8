package dev.zkr.recipes;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;

/** {@link AcknowledgedQueue} over a {@link QueueCore} in claim-node mode. */
final class AckQueue<T> implements AcknowledgedQueue<T> {

    private final QueueCore core;
    private final QueueSerializer<T> serializer;

    AckQueue(QueueCore core, QueueSerializer<T> serializer) {
        this.core = core;
        this.serializer = serializer;
    }

    @Override
    public void offer(T item) {
        core.offer(serializer.serialize(item));
    }

    @Override
    public QueueItem<T> take() {
        return item(core.take(Deadline.NONE));
    }

    @Override
    public Optional<QueueItem<T>> poll(Duration timeout) {
        QueueCore.Claimed c = core.take(Deadline.after(timeout));
        return c == null ? Optional.empty() : Optional.of(item(c));
    }

    private QueueItem<T> item(QueueCore.Claimed c) {
        return new Item<>(core, c, serializer.deserialize(c.data()));
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
        return "AcknowledgedQueue[" + core.path() + "]";
    }

    private static final class Item<T> implements QueueItem<T> {
        private final QueueCore core;
        private final QueueCore.Claimed claimed;
        private final T value;
        private final AtomicBoolean done = new AtomicBoolean();
        private volatile boolean acked;

        Item(QueueCore core, QueueCore.Claimed claimed, T value) {
            this.core = core;
            this.claimed = claimed;
            this.value = value;
        }

        @Override
        public T value() {
            return value;
        }

        @Override
        public String id() {
            return claimed.name();
        }

        @Override
        public boolean ack() {
            if (done.compareAndSet(false, true)) {
                acked = core.ack(claimed);
            }
            return acked;
        }

        @Override
        public void release() {
            if (done.compareAndSet(false, true)) {
                core.release(claimed);
            }
        }

        @Override
        public void close() {
            release();
        }

        @Override
        public String toString() {
            return "QueueItem[" + claimed.name() + "]";
        }
    }
}
