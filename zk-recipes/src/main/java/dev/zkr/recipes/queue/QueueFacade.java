package dev.zkr.recipes.queue;

import dev.zkr.recipes.QueueSerializer;
import dev.zkr.recipes.internal.Deadline;

import java.time.Duration;
import java.util.Optional;

/**
 * What both queue flavours share over a {@link QueueCore}: offering serialized items, taking (blocking or timed),
 * size and close. A flavour says how items are claimed ({@code C}) and what a claimed item becomes for the caller
 * ({@code R}).
 */
abstract class QueueFacade<T, R, C extends QueueCore> {

    final C core;
    final QueueSerializer<T> serializer;

    QueueFacade(C core, QueueSerializer<T> serializer) {
        this.core = core;
        this.serializer = serializer;
    }

    /** What the caller gets for a claimed item. */
    abstract R deliver(QueueCore.Claimed claimed);

    public void offer(T item) {
        core.offer(serializer.serialize(item));
    }

    public R take() {
        return deliver(core.take(Deadline.NONE));
    }

    public Optional<R> poll(Duration timeout) {
        QueueCore.Claimed c = core.take(Deadline.after(timeout));
        return c == null ? Optional.empty() : Optional.of(deliver(c));
    }

    public int size() {
        return core.size();
    }

    public void close() {
        core.close();
    }
}
