package dev.zkr.recipes.queue;

import dev.zkr.recipes.QueueSerializer;
import dev.zkr.recipes.internal.Deadline;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/**
 * What both queue flavours share over a {@link QueueCore}: offering serialized items (with the key of the queue's
 * {@link ItemOrder}), taking (blocking, timed or asynchronous), removing by id, size and close. A flavour says how
 * items are claimed ({@code C}) and what a claimed item becomes for the caller ({@code R}).
 */
abstract class QueueFacade<T, R, C extends QueueCore> {

    /** The longest id an id queue accepts, in UTF-8 bytes (it goes into the item's node name, in hex). */
    static final int MAX_ID_BYTES = 256;

    final C core;
    final QueueSerializer<T> serializer;
    final Executor executor;

    QueueFacade(C core, QueueSerializer<T> serializer, Executor executor) {
        this.core = core;
        this.serializer = serializer;
        this.executor = executor;
    }

    /** What the caller gets for a claimed item. */
    abstract R deliver(QueueCore.Claimed claimed);

    public void offer(T item) {
        core.offer(serializer.serialize(item), "");
    }

    /** Priority queues: lower numbers are taken first. */
    void offerWithPriority(T item, int priority) {
        core.offer(serializer.serialize(item), core.order.priorityKey(priority));
    }

    /** Delay queues: due {@code delay} after the server's time now (learnt from a write to the queue node). */
    void offerWithDelay(T item, Duration delay) {
        Objects.requireNonNull(delay, "delay");
        if (delay.isNegative()) {
            throw new IllegalArgumentException("delay is negative: " + delay);
        }
        byte[] data = serializer.serialize(item);
        long millis;
        try {
            millis = delay.toMillis();
        } catch (ArithmeticException e) {
            millis = Long.MAX_VALUE;
        }
        long due = millis == 0 ? 0 : saturatedAdd(core.serverNow(Deadline.NONE), millis);
        core.offer(data, core.order.dueKey(due));
    }

    private static long saturatedAdd(long a, long b) {
        long sum = a + b;
        return ((a ^ sum) & (b ^ sum)) < 0 ? Long.MAX_VALUE : sum;
    }

    /** Id queues: the item carries {@code id}. */
    void offerWithId(String id, T item) {
        String key = idKey(id);
        core.offer(serializer.serialize(item), key);
    }

    /** Id queues: removes the queued items with this id that no consumer holds. */
    int removeById(String id) {
        return core.remove(idKey(id));
    }

    private String idKey(String id) {
        if (id == null || id.isEmpty()) {
            throw new IllegalArgumentException("an item id must not be null or empty");
        }
        if (id.getBytes(StandardCharsets.UTF_8).length > MAX_ID_BYTES) {
            throw new IllegalArgumentException("an item id must be at most " + MAX_ID_BYTES + " UTF-8 bytes");
        }
        return core.order.idKey(id);
    }

    public R take() {
        return deliver(core.take(Deadline.NONE));
    }

    public Optional<R> poll(Duration timeout) {
        QueueCore.Claimed c = core.take(Deadline.after(timeout));
        return c == null ? Optional.empty() : Optional.of(deliver(c));
    }

    public CompletableFuture<R> takeAsync() {
        return AsyncTake.start(core, executor, this::deliver);
    }

    public int size() {
        return core.size();
    }

    public void close() {
        core.close();
    }
}
