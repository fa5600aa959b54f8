package dev.zkr.recipes;

import java.util.concurrent.atomic.AtomicBoolean;

/** {@link AcknowledgedQueue} over a {@link QueueCore} in claim-node mode. */
final class AckQueue<T> extends QueueFacade<T, QueueItem<T>> implements AcknowledgedQueue<T> {

    AckQueue(QueueCore core, QueueSerializer<T> serializer) {
        super(core, serializer);
    }

    @Override
    QueueItem<T> deliver(QueueCore.Claimed claimed) {
        return new Item<>(core, claimed, serializer.deserialize(claimed.data()));
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
