package dev.zkr.recipes;

import dev.zkr.client.ConnectionStateListener;
import dev.zkr.client.Watcher;
import dev.zkr.client.WatcherType;
import dev.zkr.client.ZkClient;
import dev.zkr.client.ZkException;
import dev.zkr.client.ZkPaths;

import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The shared driver of the fair recipes (lock, read/write lock, fair election), like Curator's LockInternals:
 * each participant creates a protected ephemeral-sequential node under one parent and, as told by a
 * {@link NodePredicate}, either holds or watches exactly one other node (getData watch, no herd) until it goes.
 *
 * <p>A participant holds only through a node its <em>current</em> session owns: after session expiry the old node
 * is forgotten and a new one queues at the end, so two sessions never both believe they hold.
 */
final class SequentialNodeQueue {

    private final ZkClient client;
    private final String path;
    private final String base;
    private final NodePredicate predicate;

    SequentialNodeQueue(ZkClient client, String path, String base, NodePredicate predicate) {
        this.client = client;
        this.path = ZkPaths.validate(path);
        this.base = base;
        this.predicate = predicate;
    }

    String path() {
        return path;
    }

    /** The participants' names, sorted by arrival (sequence). */
    List<String> sortedChildren() {
        try {
            return ProtectedNames.sortBySequence(client.getChildren(path));
        } catch (ZkException.NoNode e) {
            return List.of();
        }
    }

    /**
     * Queues (with {@code existing}, if still owned by the current session, or a new node) and waits until the
     * predicate says we hold. Returns the held node, or null if the deadline passed (our node is then deleted).
     * On interrupt or failure our node is deleted and the exception propagates.
     */
    OwnedNode acquire(OwnedNode existing, byte[] data, Deadline deadline) {
        OwnedNode ours = existing;
        boolean held = false;
        try {
            while (!deadline.expired()) {
                if (ours != null && ours.owner() != client.sessionId()) {
                    ours = null; // its session expired: the node is gone with it
                }
                if (ours == null) {
                    ours = ProtectedNames.create(client, path, base, data, deadline);
                }
                List<String> sorted = Connection.retrying(client, deadline, this::sortedChildren);
                int index = sorted.indexOf(ours.name());
                if (index < 0) {
                    ours = null; // deleted (expiry, or by someone): queue again
                    continue;
                }
                NodePredicate.Decision decision = predicate.decide(sorted, index);
                if (decision.acquired()) {
                    if (ours.owner() != client.sessionId()) {
                        ours = null;
                        continue;
                    }
                    held = true;
                    return ours;
                }
                waitForDeletion(ZkPaths.join(path, decision.watch()), deadline);
            }
            return null;
        } finally {
            if (!held && ours != null) {
                Connection.deleteQuietly(client, ours.path(), ours.owner());
            }
        }
    }

    /** Waits until the node changes or goes, the connection changes, or the deadline passes. */
    private void waitForDeletion(String other, Deadline deadline) {
        Signal signal = new Signal();
        AtomicBoolean fired = new AtomicBoolean();
        Watcher watcher = e -> {
            fired.set(true);
            signal.fire();
        };
        ConnectionStateListener onState = (c, s) -> signal.fire();
        client.addConnectionStateListener(onState);
        try {
            Connection.watchedRead(client, client.getDataAsync(other, watcher), other, watcher, WatcherType.DATA);
            signal.await(deadline);
        } catch (ZkException.NoNode gone) {
            fired.set(true); // no watch was left
        } catch (ZkException.ConnectionLoss | ZkException.OperationTimeout e) {
            Connection.recover(client, deadline);
        } finally {
            client.removeConnectionStateListener(onState);
            if (!fired.get()) {
                Connection.removeWatchQuietly(client, other, watcher, WatcherType.DATA);
            }
        }
    }

    /** Gives up a node (deletes it, retrying in the background if the connection is down). */
    void release(OwnedNode node) {
        Connection.deleteQuietly(client, node.path(), node.owner());
    }
}
