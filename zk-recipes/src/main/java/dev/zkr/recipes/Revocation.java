package dev.zkr.recipes;

import dev.zkr.client.ConnectionState;
import dev.zkr.client.ConnectionStateListener;
import dev.zkr.client.NodeData;
import dev.zkr.client.WatchedEvent;
import dev.zkr.client.Watcher;
import dev.zkr.client.WatcherType;
import dev.zkr.client.ZkClient;
import dev.zkr.client.ZkException;
import dev.zkr.client.ZkPaths;
import dev.zkr.recipes.internal.Cleanup;
import dev.zkr.recipes.internal.OwnedNode;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Cooperative revocation, as in the ZooKeeper paper: a requester writes {@link #REQUEST} into the holder's node
 * (durable: it outlives the requester and the holder's reconnects); the holder watches its own node and calls its
 * listener once per new data version that carries the request. Everything here runs on the client's event thread
 * without blocking; the listener runs on the executor.
 */
final class Revocation {

    /** The data a requester writes into a holder's node. */
    static final byte[] REQUEST = "revoke".getBytes(StandardCharsets.UTF_8);

    private final ZkClient client;
    private final OwnedNode node;
    private final LockLease lease;
    private final RevocationListener listener;
    private final Executor executor;
    private final AtomicBoolean stopped = new AtomicBoolean();
    private final AtomicBoolean fired = new AtomicBoolean(true); // no watch set yet
    private final Watcher watcher = this::onEvent;
    private final ConnectionStateListener onState = this::onState;
    private int handledVersion; // guarded by this: the node's version when it was created (0) or last handled

    private Revocation(ZkClient client, OwnedNode node, LockLease lease, RevocationListener listener,
                       Executor executor) {
        this.client = client;
        this.node = node;
        this.lease = lease;
        this.listener = listener;
        this.executor = executor;
    }

    /** Starts watching the holder's node: a request made before now is delivered too. */
    static Revocation watch(ZkClient client, OwnedNode node, LockLease lease, RevocationListener listener,
                            Executor executor) {
        Revocation r = new Revocation(client, node, lease, listener, executor);
        client.addConnectionStateListener(r.onState);
        r.read();
        return r;
    }

    /**
     * Asks the holders named: writes the request into each node; true if at least one node was there to ask.
     * A node that is gone meanwhile is skipped.
     */
    static boolean request(ZkClient client, String parent, List<String> holders) {
        boolean asked = false;
        for (String name : holders) {
            try {
                client.setData(ZkPaths.join(parent, name), REQUEST, -1);
                asked = true;
            } catch (ZkException.NoNode gone) {
                // released meanwhile
            }
        }
        return asked;
    }

    private void read() {
        if (stopped.get() || client.sessionId() != node.owner()) {
            return;
        }
        fired.set(false);
        client.getDataAsync(node.path(), watcher).whenComplete((data, err) -> {
            if (err == null) {
                deliver(data);
            } else {
                fired.set(true); // NoNode: no watch was left; ConnectionLoss: read again on RECONNECTED
            }
        });
    }

    private void onEvent(WatchedEvent e) {
        fired.set(true);
        if (e.type() == WatchedEvent.Type.NODE_DATA_CHANGED) {
            read();
        }
    }

    private void onState(ZkClient c, ConnectionState s) {
        if (s == ConnectionState.RECONNECTED) {
            read(); // a request written while we were away; the version check keeps it to one call
        } else if (s == ConnectionState.LOST && !stopped.getAndSet(true)) {
            client.removeConnectionStateListener(onState); // the session's watches are gone with it
        }
    }

    private void deliver(NodeData data) {
        synchronized (this) {
            if (stopped.get() || data.stat().version() <= handledVersion || !Arrays.equals(REQUEST, data.data())) {
                return;
            }
            handledVersion = data.stat().version();
        }
        try {
            executor.execute(() -> {
                if (!stopped.get()) {
                    listener.revocationRequested(lease);
                }
            });
        } catch (RuntimeException rejected) {
            // the executor is shut down: nobody to tell
        }
    }

    /** Stops watching (the lease was released or lost); removes the watch if it is still set. */
    void stop() {
        if (stopped.getAndSet(true)) {
            return;
        }
        client.removeConnectionStateListener(onState);
        if (!fired.get() && client.sessionId() == node.owner()) {
            Cleanup.removeWatchQuietly(client, node.path(), watcher, WatcherType.DATA);
        }
    }
}
