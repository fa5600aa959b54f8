package dev.zkr.recipes;

import dev.zkr.client.ClientSupport;
import dev.zkr.client.ConnectionState;
import dev.zkr.client.ConnectionStateListener;
import dev.zkr.client.Watcher;
import dev.zkr.client.WatcherType;
import dev.zkr.client.ZkClient;
import dev.zkr.client.ZkException;
import dev.zkr.recipes.internal.Retries;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/**
 * Waits without a thread until a node is absent: {@code getData} with a watch (on an absent node it fails with
 * NoNode and leaves no watch), again when the watch fires or the connection comes back. The future completes on the
 * executor with null once the node is absent, fails with {@link ZkException.Closed} when the client is closed; any
 * other completion (cancel, a timeout, the owner closing) removes the watch and the connection listener.
 */
final class NodeGoneWait {

    private final ZkClient client;
    private final String path;
    private final Executor executor;
    private final CompletableFuture<Void> result = new CompletableFuture<>();
    private final ConnectionStateListener onConnection = this::connectionChanged;
    // guarded by this
    private long epoch;
    private Watcher watcher;

    private NodeGoneWait(ZkClient client, String path, Executor executor) {
        this.client = client;
        this.path = path;
        this.executor = executor;
    }

    /** Starts waiting; complete or cancel the future to stop. */
    static CompletableFuture<Void> start(ZkClient client, String path, Executor executor) {
        NodeGoneWait w = new NodeGoneWait(client, path, executor);
        client.addConnectionStateListener(w.onConnection);
        w.result.whenComplete((v, err) -> w.finished());
        w.look();
        return w.result;
    }

    private synchronized void look() {
        if (result.isDone()) {
            return;
        }
        long e = ++epoch;
        if (client.isClosed()) {
            done(new ZkException.Closed(path, "the client is closed"));
            return;
        }
        if (!client.state().isConnected()) {
            Retries.whenConnected(client).thenRun(this::look);
            return;
        }
        dropWatch();
        Watcher w = event -> fired(e);
        watcher = w;
        CompletableFuture<?> read;
        try {
            read = client.getDataAsync(path, w);
        } catch (RuntimeException err) {
            done(err);
            return;
        }
        read.whenComplete((data, err) -> {
            synchronized (this) {
                if (e != epoch || result.isDone()) {
                    if (err == null) {
                        // answered after this look was superseded or the wait ended: the client registered the
                        // watch on the answer, after the removal that meant to drop it; remove it now
                        removeQuietly(w);
                    }
                    return;
                }
                if (err == null) {
                    return; // present: the watch wakes us
                }
                RuntimeException cause = ClientSupport.unwrap(err);
                if (cause instanceof ZkException.NoNode) {
                    watcher = null; // no watch is left on an absent node
                    done(null);
                } else if (cause instanceof ZkException.ConnectionLoss || cause instanceof ZkException.OperationTimeout
                        || cause instanceof ZkException.SessionExpired) {
                    Retries.whenConnected(client).thenRun(this::look);
                } else {
                    done(cause);
                }
            }
        });
    }

    private synchronized void fired(long e) {
        if (e == epoch) {
            watcher = null;
            look();
        }
    }

    private void connectionChanged(ZkClient c, ConnectionState s) {
        if (s == ConnectionState.RECONNECTED || s == ConnectionState.CONNECTED
                || (s == ConnectionState.LOST && client.isClosed())) {
            look(); // an answer or a watch may have been lost with the connection
        }
    }

    private void done(Throwable failure) {
        try {
            executor.execute(() -> {
                if (failure == null) {
                    result.complete(null);
                } else {
                    result.completeExceptionally(failure);
                }
            });
        } catch (RuntimeException rejected) {
            result.completeExceptionally(rejected);
        }
    }

    private synchronized void dropWatch() {
        Watcher w = watcher;
        watcher = null;
        if (w != null) {
            removeQuietly(w);
        }
    }

    private void removeQuietly(Watcher w) {
        try {
            client.removeWatchesAsync(path, w, WatcherType.DATA, true).exceptionally(x -> null);
        } catch (RuntimeException ignored) {
            // the client is closing: its watches go with it
        }
    }

    private void finished() {
        client.removeConnectionStateListener(onConnection);
        synchronized (this) {
            epoch++;
            dropWatch();
        }
    }
}
