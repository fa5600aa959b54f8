package dev.zkr.recipes;

import java.util.function.Supplier;

/**
 * Builds an ordered queue: {@code Q} without, {@code A} with acknowledged delivery. Obtain one from
 * {@link QueueBuilder#priority()}, {@link QueueBuilder#delay()} or {@link QueueBuilder#ids()}.
 */
public final class OrderedQueueBuilder<Q, A> {

    private final Supplier<Q> simple;
    private final Supplier<A> acknowledged;

    OrderedQueueBuilder(Supplier<Q> simple, Supplier<A> acknowledged) {
        this.simple = simple;
        this.acknowledged = acknowledged;
    }

    /** A queue whose take removes the item at once (each item to exactly one consumer, at most once). */
    public Q build() {
        return simple.get();
    }

    /** A queue with acknowledged delivery (items of consumers that die before the ack are redelivered). */
    public A buildAcknowledged() {
        return acknowledged.get();
    }
}
