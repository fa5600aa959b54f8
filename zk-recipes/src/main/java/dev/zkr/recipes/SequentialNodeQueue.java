package dev.zkr.recipes;

import dev.zkr.client.Children;
import dev.zkr.client.ClientSupport;
import dev.zkr.client.ZkClient;
import dev.zkr.client.ZkException;
import dev.zkr.client.ZkPaths;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

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
     *
     * <p>Round trips: a new node's create and the listing are pipelined (the listing is sent before the create's
     * response; the server answers it after the create). Then only the watched node is read (with a watch). When
     * it goes, the predicate decides again on the cached listing without it: every node that could precede ours
     * is in that listing (a node created later has a higher sequence number), so the listing can only have shrunk
     * since. If that says we hold (the watched node was the last one ahead of us), no further request is needed;
     * otherwise, or after a connection event or another watch event, we list again (one getChildren, like
     * Curator) rather than probe the other cached nodes one by one.
     */
    OwnedNode acquire(OwnedNode existing, byte[] data, Deadline deadline) {
        OwnedNode ours = existing;
        boolean held = false;
        try {
            while (!deadline.expired()) {
                if (ours != null && ours.owner() != client.sessionId()) {
                    ours = null; // its session expired: the node is gone with it
                }
                List<String> sorted = null;
                if (ours == null) {
                    @SuppressWarnings("unchecked")
                    CompletableFuture<Children>[] listing = new CompletableFuture[1];
                    ours = ProtectedNames.create(client, path, base, data, deadline,
                            () -> listing[0] = client.getChildrenAsync(path, null));
                    sorted = pipelined(listing[0], ours);
                }
                if (sorted == null) {
                    sorted = Connection.retrying(client, deadline, this::sortedChildren);
                }
                int index = sorted.indexOf(ours.name());
                if (index < 0) {
                    ours = null; // deleted (expiry, or by someone): queue again
                    continue;
                }
                NodePredicate.Decision decision = predicate.decide(sorted, index);
                if (!decision.acquired() && waitForDeletion(ZkPaths.join(path, decision.watch()), deadline)) {
                    List<String> ahead = new ArrayList<>(sorted.subList(0, index + 1));
                    ahead.remove(decision.watch());
                    decision = predicate.decide(ahead, ahead.size() - 1);
                    // not acquired on the cached listing: the nodes it still names may be gone too: list again
                }
                if (decision.acquired()) {
                    if (ours.owner() != client.sessionId()) {
                        ours = null;
                        continue;
                    }
                    if (Thread.currentThread().isInterrupted()) {
                        // interrupted while (or just after) being woken: honour it as a blocking call would
                        throw new ZkException.Interrupted(path, "interrupted while acquiring");
                    }
                    held = true;
                    return ours;
                }
            }
            return null;
        } finally {
            if (!held && ours != null) {
                Connection.deleteQuietly(client, ours.path(), ours.owner());
            }
        }
    }

    /** The pipelined listing, sorted, if it answered and shows our node; null to list again. */
    private static List<String> pipelined(CompletableFuture<Children> listing, OwnedNode ours) {
        if (listing == null) {
            return null;
        }
        List<String> sorted;
        try {
            sorted = ProtectedNames.sortBySequence(ClientSupport.await(listing).names());
        } catch (ZkException.Interrupted e) {
            throw e;
        } catch (ZkException e) {
            return null; // e.g. the parent was created after the first create attempt
        }
        return sorted.contains(ours.name()) ? sorted : null;
    }

    /**
     * Waits until the node goes, something else happens (its data changes, the connection changes) or the
     * deadline passes; true only if the node is known to be deleted.
     */
    private boolean waitForDeletion(String other, Deadline deadline) {
        NodeWatch watch = NodeWatch.open(client, other);
        try {
            if (watch.read() == null) {
                return true;
            }
            watch.await(deadline);
            return watch.deleted();
        } catch (ZkException.ConnectionLoss | ZkException.OperationTimeout e) {
            Connection.recover(client, deadline);
            return false;
        } catch (ZkException.SessionExpired e) {
            Connection.awaitConnected(client, deadline); // our node went with the session: queue again
            return false;
        } finally {
            watch.close();
        }
    }

    /** Gives up a node (deletes it, retrying in the background if the connection is down). */
    void release(OwnedNode node) {
        Connection.deleteQuietly(client, node.path(), node.owner());
    }
}
