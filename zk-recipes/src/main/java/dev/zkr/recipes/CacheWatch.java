package dev.zkr.recipes;

import dev.zkr.client.AddWatchMode;
import dev.zkr.client.ClientSupport;
import dev.zkr.client.ConnectionState;
import dev.zkr.client.ConnectionStateListener;
import dev.zkr.client.Watcher;
import dev.zkr.client.WatcherType;
import dev.zkr.client.ZkClient;
import dev.zkr.client.ZkException;
import dev.zkr.recipes.internal.Cleanup;
import dev.zkr.recipes.internal.Deadline;
import dev.zkr.recipes.internal.Retries;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The watch and resynchronisation shared by the caches ({@link NodeCache}, {@link TreeCache}): a persistent watch
 * of the given mode on one path, and a {@code resync} call whenever changes may have been missed — after
 * RECONNECTED (the client restored the watch; events sent while away are lost) and after a new session (CONNECTED:
 * its watches are gone, so the watch is set again first). {@link #close()} removes both. The watch is set with
 * data: on zkr's own client its created and data-changed events carry the node's data and Stat, so a cache applies
 * them without a read; on a backend that cannot send them (ZooKeeper) they come without, and the cache reads.
 */
final class CacheWatch {

    private final ZkClient client;
    private final String path;
    private final AddWatchMode mode;
    private final Watcher watcher;
    private final Runnable resync;
    private final Lifecycle lifecycle;
    private final ConnectionStateListener onState = this::onState;

    CacheWatch(ZkClient client, String path, AddWatchMode mode, Watcher watcher, Runnable resync,
               Lifecycle lifecycle) {
        this.client = client;
        this.path = path;
        this.mode = mode;
        this.watcher = watcher;
        this.resync = resync;
        this.lifecycle = lifecycle;
    }

    /** Listens to connection states and sets the watch (retrying through connection losses). */
    void open() {
        client.addConnectionStateListener(onState);
        Retries.retrying(client, Deadline.NONE,
                () -> ClientSupport.await(client.addWatchAsync(path, mode, true, watcher)));
    }

    private void onState(ZkClient c, ConnectionState s) {
        if (lifecycle.isClosed()) {
            return;
        }
        if (s == ConnectionState.RECONNECTED) {
            resync.run(); // changes made while we were away (the watch is back with the session)
        } else if (s == ConnectionState.CONNECTED) {
            // a new session: its watches are gone; set it again, then read
            client.addWatchAsync(path, mode, true, watcher).whenComplete((v, err) -> resync.run());
        }
    }

    /**
     * Waits until {@code initialized} completes (the cache's first synchronisation), failing if the client is
     * closed meanwhile; an interrupt closes the cache ({@code close}) and throws {@link ZkException.Interrupted}.
     */
    void awaitInitialized(CompletableFuture<Void> initialized, Runnable close) {
        while (true) {
            try {
                initialized.get(1, TimeUnit.SECONDS);
                return;
            } catch (TimeoutException e) {
                if (client.isClosed()) {
                    throw new ZkException.Closed(path, "the client was closed while the cache started");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                close.run();
                throw new ZkException.Interrupted(path, "interrupted while the cache started");
            } catch (ExecutionException e) {
                throw new IllegalStateException(e.getCause());
            }
        }
    }

    /** Stops listening and removes the watch (quietly, bounded). */
    void close() {
        client.removeConnectionStateListener(onState);
        if (!client.isClosed()) {
            Cleanup.removeWatchQuietly(client, path, watcher, WatcherType.of(mode));
        }
    }
}
