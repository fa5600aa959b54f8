package dev.zkr.recipes.queue;

import dev.zkr.client.ZkClient;
import dev.zkr.recipes.DistributedQueue;
import dev.zkr.recipes.QueueSerializer;

/** {@link DistributedQueue} over a {@link DeleteClaimCore} (a claim removes the item). Internal, not API. */
public final class SimpleQueue<T> extends QueueFacade<T, T, DeleteClaimCore> implements DistributedQueue<T> {

    public SimpleQueue(ZkClient client, String path, QueueSerializer<T> serializer) {
        super(new DeleteClaimCore(client, path), serializer);
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
