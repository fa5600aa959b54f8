package dev.zkr.recipes;

/** {@link DistributedQueue} over a {@link QueueCore} in claim-by-delete mode. */
final class SimpleQueue<T> extends QueueFacade<T, T> implements DistributedQueue<T> {

    SimpleQueue(QueueCore core, QueueSerializer<T> serializer) {
        super(core, serializer);
    }

    @Override
    T deliver(QueueCore.Claimed claimed) {
        return serializer.deserialize(claimed.data());
    }

    @Override
    public String toString() {
        return "DistributedQueue[" + core.path() + "]";
    }
}
