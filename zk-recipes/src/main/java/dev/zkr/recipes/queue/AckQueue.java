package dev.zkr.recipes.queue;

import dev.zkr.client.ZkClient;
import dev.zkr.recipes.AcknowledgedDelayQueue;
import dev.zkr.recipes.AcknowledgedIdQueue;
import dev.zkr.recipes.AcknowledgedPriorityQueue;
import dev.zkr.recipes.AcknowledgedQueue;
import dev.zkr.recipes.QueueItem;
import dev.zkr.recipes.QueueSerializer;

import java.time.Duration;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * {@link AcknowledgedQueue} over a {@link NodeClaimCore} (a claim is an ephemeral node; ack removes the item), and
 * its ordered variants. Internal, not API.
 */
public class AckQueue<T> extends QueueFacade<T, QueueItem<T>, NodeClaimCore> implements AcknowledgedQueue<T> {

    private final String kind;

    AckQueue(ZkClient client, String path, QueueSerializer<T> serializer, Executor executor, ItemOrder order,
             String kind) {
        super(new NodeClaimCore(client, path, order), serializer, executor);
        this.kind = kind;
    }

    public static <T> AcknowledgedQueue<T> fifo(ZkClient client, String path, QueueSerializer<T> serializer,
                                                Executor executor) {
        return new AckQueue<>(client, path, serializer, executor, ItemOrder.FIFO, "AcknowledgedQueue");
    }

    public static <T> AcknowledgedPriorityQueue<T> priority(ZkClient client, String path,
                                                            QueueSerializer<T> serializer, Executor executor) {
        return new Priority<>(client, path, serializer, executor);
    }

    public static <T> AcknowledgedDelayQueue<T> delay(ZkClient client, String path, QueueSerializer<T> serializer,
                                                      Executor executor) {
        return new Delay<>(client, path, serializer, executor);
    }

    public static <T> AcknowledgedIdQueue<T> ids(ZkClient client, String path, QueueSerializer<T> serializer,
                                                 Executor executor) {
        return new Ids<>(client, path, serializer, executor);
    }

    @Override
    QueueItem<T> deliver(QueueCore.Claimed claimed) {
        return new Item<>(core, claimed, serializer.deserialize(claimed.data()));
    }

    @Override
    public String toString() {
        return kind + "[" + core.path() + "]";
    }

    private static final class Priority<T> extends AckQueue<T> implements AcknowledgedPriorityQueue<T> {
        Priority(ZkClient client, String path, QueueSerializer<T> serializer, Executor executor) {
            super(client, path, serializer, executor, ItemOrder.PRIORITY, "AcknowledgedPriorityQueue");
        }

        @Override
        public void offer(T item, int priority) {
            offerWithPriority(item, priority);
        }
    }

    private static final class Delay<T> extends AckQueue<T> implements AcknowledgedDelayQueue<T> {
        Delay(ZkClient client, String path, QueueSerializer<T> serializer, Executor executor) {
            super(client, path, serializer, executor, ItemOrder.DELAY, "AcknowledgedDelayQueue");
        }

        @Override
        public void offer(T item, Duration delay) {
            offerWithDelay(item, delay);
        }
    }

    private static final class Ids<T> extends AckQueue<T> implements AcknowledgedIdQueue<T> {
        Ids(ZkClient client, String path, QueueSerializer<T> serializer, Executor executor) {
            super(client, path, serializer, executor, ItemOrder.IDS, "AcknowledgedIdQueue");
        }

        @Override
        public void offer(String id, T item) {
            offerWithId(id, item);
        }

        @Override
        public int remove(String id) {
            return removeById(id);
        }
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
