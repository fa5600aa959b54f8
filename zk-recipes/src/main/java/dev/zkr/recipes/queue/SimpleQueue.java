package dev.zkr.recipes.queue;

import dev.zkr.client.ZkClient;
import dev.zkr.recipes.DistributedDelayQueue;
import dev.zkr.recipes.DistributedIdQueue;
import dev.zkr.recipes.DistributedPriorityQueue;
import dev.zkr.recipes.DistributedQueue;
import dev.zkr.recipes.QueueSerializer;

import java.time.Duration;
import java.util.concurrent.Executor;

/**
 * {@link DistributedQueue} over a {@link DeleteClaimCore} (a claim removes the item), and its ordered variants.
 * Internal, not API.
 */
public class SimpleQueue<T> extends QueueFacade<T, T, DeleteClaimCore> implements DistributedQueue<T> {

    private final String kind;

    SimpleQueue(ZkClient client, String path, QueueSerializer<T> serializer, Executor executor, ItemOrder order,
                String kind) {
        super(new DeleteClaimCore(client, path, order), serializer, executor);
        this.kind = kind;
    }

    public static <T> DistributedQueue<T> fifo(ZkClient client, String path, QueueSerializer<T> serializer,
                                               Executor executor) {
        return new SimpleQueue<>(client, path, serializer, executor, ItemOrder.FIFO, "DistributedQueue");
    }

    public static <T> DistributedPriorityQueue<T> priority(ZkClient client, String path,
                                                           QueueSerializer<T> serializer, Executor executor) {
        return new Priority<>(client, path, serializer, executor);
    }

    public static <T> DistributedDelayQueue<T> delay(ZkClient client, String path, QueueSerializer<T> serializer,
                                                     Executor executor) {
        return new Delay<>(client, path, serializer, executor);
    }

    public static <T> DistributedIdQueue<T> ids(ZkClient client, String path, QueueSerializer<T> serializer,
                                                Executor executor) {
        return new Ids<>(client, path, serializer, executor);
    }

    @Override
    T deliver(QueueCore.Claimed claimed) {
        return serializer.deserialize(claimed.data());
    }

    @Override
    public String toString() {
        return kind + "[" + core.path() + "]";
    }

    private static final class Priority<T> extends SimpleQueue<T> implements DistributedPriorityQueue<T> {
        Priority(ZkClient client, String path, QueueSerializer<T> serializer, Executor executor) {
            super(client, path, serializer, executor, ItemOrder.PRIORITY, "DistributedPriorityQueue");
        }

        @Override
        public void offer(T item, int priority) {
            offerWithPriority(item, priority);
        }
    }

    private static final class Delay<T> extends SimpleQueue<T> implements DistributedDelayQueue<T> {
        Delay(ZkClient client, String path, QueueSerializer<T> serializer, Executor executor) {
            super(client, path, serializer, executor, ItemOrder.DELAY, "DistributedDelayQueue");
        }

        @Override
        public void offer(T item, Duration delay) {
            offerWithDelay(item, delay);
        }
    }

    private static final class Ids<T> extends SimpleQueue<T> implements DistributedIdQueue<T> {
        Ids(ZkClient client, String path, QueueSerializer<T> serializer, Executor executor) {
            super(client, path, serializer, executor, ItemOrder.IDS, "DistributedIdQueue");
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
}
