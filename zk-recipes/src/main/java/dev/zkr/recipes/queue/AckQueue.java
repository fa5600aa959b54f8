package dev.zkr.recipes.queue;

import dev.zkr.client.ZkClient;
import dev.zkr.recipes.AcknowledgedQueue;
import dev.zkr.recipes.QueueItem;
import dev.zkr.recipes.QueueSerializer;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * {@link AcknowledgedQueue} over a {@link NodeClaimCore} (a claim is an ephemeral node; ack removes the item).
 * Internal, not API.
 */
public final class AckQueue<T> extends QueueFacade<T, QueueItem<T>, NodeClaimCore> implements AcknowledgedQueue<T> {

    public AckQueue(ZkClient client, String path, QueueSerializer<T> serializer) {
        super(new NodeClaimCore(client, path), serializer);
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
        private final NodeClaimCore core;
        private final QueueCore.Claimed claimed;
        private final T value;
        private final AtomicBoolean done = new AtomicBoolean();
        private volatile boolean acked;

        Item(NodeClaimCore core, QueueCore.Claimed claimed, T value) {
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
