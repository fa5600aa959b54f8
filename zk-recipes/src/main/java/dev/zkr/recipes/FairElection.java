package dev.zkr.recipes;

import dev.zkr.client.ZkClient;
import dev.zkr.client.ZkException;
import dev.zkr.client.ZkPaths;
import dev.zkr.recipes.internal.Deadline;
import dev.zkr.recipes.internal.OwnedNode;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Predicate;

/** Fair election: a {@link SequentialNodeQueue} whose first node leads; leadership follows arrival order. */
final class FairElection implements Election {

    private final ZkClient client;
    private final SequentialNodeQueue queue;
    private final byte[] id;

    FairElection(ZkClient client, String path, String id) {
        this.client = client;
        this.queue = new SequentialNodeQueue(client, path, "latch-", NodePredicate.EXCLUSIVE);
        this.id = id.getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public OwnedNode elect(OwnedNode previous, Predicate<OwnedNode> early) {
        return queue.acquire(previous, id, Deadline.NONE, early);
    }

    @Override
    public CompletableFuture<Void> resign(OwnedNode node) {
        return queue.releaseAsync(node);
    }

    @Override
    public List<String> participants() {
        List<String> ids = new ArrayList<>();
        for (String name : queue.sortedChildren()) {
            try {
                ids.add(new String(client.getData(ZkPaths.join(queue.path(), name)).data(), StandardCharsets.UTF_8));
            } catch (ZkException.NoNode gone) {
                // left meanwhile
            }
        }
        return ids;
    }

    @Override
    public Optional<String> leaderId() {
        while (true) {
            List<String> sorted = queue.sortedChildren();
            if (sorted.isEmpty()) {
                return Optional.empty();
            }
            try {
                byte[] data = client.getData(ZkPaths.join(queue.path(), sorted.get(0))).data();
                return Optional.of(new String(data, StandardCharsets.UTF_8));
            } catch (ZkException.NoNode gone) {
                // the leader just left: look again
            }
        }
    }
}
