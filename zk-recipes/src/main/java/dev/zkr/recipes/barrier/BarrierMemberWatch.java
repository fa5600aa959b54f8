package dev.zkr.recipes.barrier;

import dev.zkr.client.NodeData;
import dev.zkr.client.WatchedEvent;
import dev.zkr.client.Watcher;
import dev.zkr.client.ZkPaths;
import dev.zkr.recipes.internal.Signal;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/** A leave's watched read of another member's node, waking a look's signal when it fires. */
final class BarrierMemberWatch implements Watcher {
    private final BarrierMember barrier;
    /** The id of the member watched. */
    final String member;
    final AtomicBoolean fired = new AtomicBoolean();
    final CompletableFuture<NodeData> read;
    private final Signal signal;
    /** Called (before the wake-up) when the node is deleted, if set. */
    volatile Consumer<String> onDeletion;

    /** Sends the watched read of {@code member}'s node. */
    BarrierMemberWatch(BarrierMember barrier, String member, Signal signal) {
        this.barrier = barrier;
        this.member = member;
        this.signal = signal;
        this.read = barrier.client.getDataAsync(ZkPaths.join(barrier.path, member), this);
    }

    @Override
    public void process(WatchedEvent e) {
        fired.set(true);
        Consumer<String> then = onDeletion;
        try {
            if (then != null && e.type() == WatchedEvent.Type.NODE_DELETED) {
                then.accept(member);
            }
        } finally {
            signal.fire();
        }
    }

    /**
     * Removes the watch unless it fired (or the read found nothing), without waiting: it goes from the client's
     * registry at once (or when the read in flight registers it), the server is told in the background.
     */
    void drop() {
        if (!fired.get()) {
            barrier.removeWhenRead(read, ZkPaths.join(barrier.path, member), this);
        }
    }
}
