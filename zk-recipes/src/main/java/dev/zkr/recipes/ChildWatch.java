package dev.zkr.recipes;

import dev.zkr.client.ConnectionStateListener;
import dev.zkr.client.Watcher;
import dev.zkr.client.WatcherType;
import dev.zkr.client.ZkClient;
import dev.zkr.client.ZkException;
import dev.zkr.recipes.internal.Cleanup;
import dev.zkr.recipes.internal.Deadline;
import dev.zkr.recipes.internal.ProtectedNames;
import dev.zkr.recipes.internal.Signal;

import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A one-shot child watch on one parent, for "wait until the participants change": the watch and any
 * connection-state change wake {@link #await}. Always {@link #close()} in a {@code finally}: it removes the
 * listener and, if the watch never fired, the watch.
 */
final class ChildWatch {

    private final ZkClient client;
    private final String path;
    private final Signal signal = new Signal();
    private final AtomicBoolean fired = new AtomicBoolean();
    private final Watcher watcher = e -> {
        fired.set(true);
        signal.fire();
    };
    private final ConnectionStateListener onState = (c, s) -> signal.fire();

    private ChildWatch(ZkClient client, String path) {
        this.client = client;
        this.path = path;
    }

    static ChildWatch open(ZkClient client, String path) {
        ChildWatch watch = new ChildWatch(client, path);
        client.addConnectionStateListener(watch.onState);
        return watch;
    }

    /** Lists the children, sorted by sequence, and sets the watch; empty (no watch) if the parent is gone. */
    List<String> read() {
        try {
            return ProtectedNames.sortBySequence(Cleanup.watchedRead(client, client.getChildrenAsync(path, watcher),
                    path, watcher, WatcherType.CHILDREN).names());
        } catch (ZkException.NoNode gone) {
            fired.set(true); // no watch was left
            return List.of();
        }
    }

    /** Waits until the watch fires, the connection state changes or the deadline passes; true unless timed out. */
    boolean await(Deadline deadline) {
        return signal.await(deadline);
    }

    void close() {
        client.removeConnectionStateListener(onState);
        if (!fired.get()) {
            Cleanup.removeWatchQuietly(client, path, watcher, WatcherType.CHILDREN);
        }
    }
}
