package dev.zkr.recipes.barrier;

import dev.zkr.client.Children;
import dev.zkr.client.ClientSupport;
import dev.zkr.client.CreateMode;
import dev.zkr.client.Parents;
import dev.zkr.client.Stat;
import dev.zkr.client.Watcher;
import dev.zkr.client.WatcherType;
import dev.zkr.client.ZkClient;
import dev.zkr.client.ZkException;
import dev.zkr.client.ZkPaths;
import dev.zkr.recipes.DoubleBarrier;
import dev.zkr.recipes.internal.Cleanup;
import dev.zkr.recipes.internal.Deadline;
import dev.zkr.recipes.internal.Retries;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * One member's place in a {@link DoubleBarrier}: the barrier's nodes, our member node and the session that owns
 * it, shared by the entry ({@link BarrierEntry}) and the exit ({@link BarrierExit}), with the reads and clean-ups
 * both make.
 */
final class BarrierMember {

    /** The child that exists while the barrier is open; every other child is a member node. */
    static final String READY = "ready";
    static final byte[] EMPTY = new byte[0];

    final ZkClient client;
    /** The barrier node. */
    final String path;
    final String readyPath;
    /** Our ephemeral member node. */
    final String nodePath;
    final String id;
    final int parties;
    /** The session that created our member node; 0 if we have none. */
    volatile long session;

    BarrierMember(ZkClient client, String path, int parties, String id) {
        this.client = client;
        this.path = path;
        this.parties = parties;
        this.id = id;
        this.readyPath = ZkPaths.join(path, READY);
        this.nodePath = ZkPaths.join(path, id);
    }

    /** Creates our ephemeral member node unless our current session already owns it. */
    void ensure(Deadline deadline) {
        long current = client.sessionId();
        if (session == current) {
            return;
        }
        while (true) {
            try {
                client.create(nodePath, EMPTY, CreateMode.EPHEMERAL, Parents.CONTAINER);
                session = current;
                return;
            } catch (ZkException.NodeExists e) {
                Stat stat = client.exists(nodePath);
                if (stat != null && stat.ephemeralOwner() == client.sessionId()) {
                    session = stat.ephemeralOwner(); // a create whose response was lost
                    return;
                }
                if (stat != null) {
                    throw inUse();
                }
            } catch (ZkException.ConnectionLoss | ZkException.OperationTimeout e) {
                if (!Retries.recover(client, deadline)) {
                    throw e;
                }
            }
        }
    }

    /** Another member (another session) holds our member id. */
    IllegalStateException inUse() {
        return new IllegalStateException("member id " + id + " is in use at " + path);
    }

    /** Deletes our node if {@code owner} is the current session, retrying over connection losses. */
    void delete(long owner, Deadline deadline) {
        if (owner == client.sessionId()) {
            try {
                Retries.retrying(client, deadline, () -> client.delete(nodePath, -1));
            } catch (ZkException.NoNode e) {
                // gone already
            }
        }
    }

    /** Deletes our node if the session that made it still owns it, without waiting on failures. */
    void deleteQuietly(long owner) {
        Cleanup.deleteQuietly(client, nodePath, owner);
    }

    /** Removes the watch a read sets (now, or once it is registered if the read is in flight) unless it failed. */
    void removeWhenRead(CompletableFuture<?> read, String node, Watcher watcher) {
        read.whenComplete((d, err) -> {
            if (err == null) {
                client.removeWatchesAsync(node, watcher, WatcherType.DATA, true).exceptionally(x -> null);
            }
        });
    }

    /** Member ids of a listing, sorted; none if the barrier node is gone. */
    static List<String> members(CompletableFuture<Children> listing) {
        try {
            return membersOf(ClientSupport.await(listing).names());
        } catch (ZkException.NoNode e) {
            return List.of();
        }
    }

    static List<String> membersOf(List<String> children) {
        List<String> names = new ArrayList<>(children);
        names.remove(READY);
        names.sort(null);
        return names;
    }
}
