package dev.zkr.recipes;

import dev.zkr.client.ConnectionStateListener;
import dev.zkr.client.NodeData;
import dev.zkr.client.WatchedEvent;
import dev.zkr.client.Watcher;
import dev.zkr.client.WatcherType;
import dev.zkr.client.ZkClient;
import dev.zkr.client.ZkException;
import dev.zkr.recipes.internal.Cleanup;
import dev.zkr.recipes.internal.Deadline;
import dev.zkr.recipes.internal.Signal;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

/**
 * A one-shot data watch on one node, for "wait until this node goes": the watch and any connection-state change
 * wake {@link #await}. {@link #open} registers the state listener; always {@link #close()} in a {@code finally}
 * (after any recovery in {@code catch}), which removes the listener and, if the watch never fired, the watch.
 *
 * <p>An optional {@code onDeleted} hook runs on the client's event thread when the watch reports the node
 * deleted, before {@link #await} returns: it lets a waiter act on the deletion without waiting for its own thread
 * to wake up. It must not block. If it returns a future (e.g. of a request it sent), the waiter is woken when
 * that completes, not before: one wake-up, with the answer there.
 */
final class NodeWatch {

    private final ZkClient client;
    private final String path;
    private final Signal signal = new Signal();
    private final AtomicBoolean fired = new AtomicBoolean();
    private final AtomicBoolean deleted = new AtomicBoolean();
    private final Watcher watcher = this::onEvent;
    private final ConnectionStateListener onState = (c, s) -> signal.fire();
    private final Supplier<CompletableFuture<?>> onDeleted;

    private NodeWatch(ZkClient client, String path, Supplier<CompletableFuture<?>> onDeleted) {
        this.client = client;
        this.path = path;
        this.onDeleted = onDeleted;
    }

    static NodeWatch open(ZkClient client, String path) {
        return open(client, path, null);
    }

    /** As {@link #open(ZkClient, String)}, with a hook run on the event thread when the node is deleted. */
    static NodeWatch open(ZkClient client, String path, Supplier<CompletableFuture<?>> onDeleted) {
        NodeWatch watch = new NodeWatch(client, path, onDeleted);
        client.addConnectionStateListener(watch.onState);
        return watch;
    }

    private void onEvent(WatchedEvent e) {
        CompletableFuture<?> pending = null;
        try {
            if (e.type() == WatchedEvent.Type.NODE_DELETED) {
                deleted.set(true);
                if (onDeleted != null) {
                    pending = onDeleted.get(); // before the signal: the waiter wakes to find it done
                }
            }
        } finally {
            fired.set(true);
            if (pending == null) {
                signal.fire();
            } else {
                pending.whenComplete((v, err) -> signal.fire());
            }
        }
    }

    /** Reads the node and sets the watch; null if the node is gone (no watch is then left). */
    NodeData read() {
        try {
            return Cleanup.watchedRead(client, client.getDataAsync(path, watcher), path, watcher, WatcherType.DATA);
        } catch (ZkException.NoNode gone) {
            fired.set(true); // no watch was left
            return null;
        }
    }

    /** Waits until the watch fires, the connection state changes or the deadline passes; true unless timed out. */
    boolean await(Deadline deadline) {
        return signal.await(deadline);
    }

    /** True if the watch reported the node deleted. */
    boolean deleted() {
        return deleted.get();
    }

    /** Removes the state listener and, if the watch never fired, the watch (quietly, bounded). */
    void close() {
        client.removeConnectionStateListener(onState);
        if (!fired.get()) {
            Cleanup.removeWatchQuietly(client, path, watcher, WatcherType.DATA);
        }
    }
}
