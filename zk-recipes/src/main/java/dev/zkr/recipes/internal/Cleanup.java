package dev.zkr.recipes.internal;

import dev.zkr.client.ClientSupport;
import dev.zkr.client.ConnectionStateListener;
import dev.zkr.client.Watcher;
import dev.zkr.client.WatcherType;
import dev.zkr.client.ZkClient;
import dev.zkr.client.ZkException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Clean-up that must happen whatever the connection does: deletes of our nodes that go on in the background until
 * done (or the owning session is gone), and removal of watches that will not be waited for. Waits are bounded and
 * never throw.
 */
public final class Cleanup {

    private static final Logger LOG = LoggerFactory.getLogger(Cleanup.class);

    /** How long a clean-up (node delete, watch removal) may wait for a response. */
    private static final long CLEANUP_WAIT_MS = 5_000;

    private Cleanup() {
    }

    /**
     * Deletes a node of the given session, ignoring an interrupt of the calling thread (the flag is kept). If it
     * cannot be done now (connection down) it goes on in the background until done or the session is gone.
     */
    public static void deleteQuietly(ZkClient client, String path, long owner) {
        awaitQuietly(client, deleteAsync(client, path, owner));
    }

    /**
     * As {@link #deleteQuietly} without the wait: the delete is sent now (retried in the background while the
     * connection is down); the future completes when it is done or given up, and never fails.
     */
    public static CompletableFuture<Void> deleteAsync(ZkClient client, String path, long owner) {
        return deleteEventually(client, path, owner, 20);
    }

    private static CompletableFuture<Void> deleteEventually(ZkClient client, String path, long owner, int attempts) {
        return deleteEventually(client, path, owner, attempts, false);
    }

    /**
     * One attempt, then retries while the connection is down. A retry after a lost response (or a version race)
     * deletes an ephemeral only if our session still owns the node at that path, at the version it read: the first
     * delete may have been applied and the name taken since by another session.
     */
    private static CompletableFuture<Void> deleteEventually(ZkClient client, String path, long owner, int attempts,
                                                            boolean retry) {
        if (owner != 0 && client.sessionId() != owner) {
            return CompletableFuture.completedFuture(null); // the old session's ephemerals are gone with it
        }
        CompletableFuture<Void> attempt;
        try {
            attempt = retry && owner != 0 ? deleteIfOwned(client, path, owner) : client.deleteAsync(path, -1);
        } catch (RuntimeException e) {
            attempt = CompletableFuture.failedFuture(e);
        }
        return attempt.handle((v, err) -> {
            if (err == null) {
                return CompletableFuture.<Void>completedFuture(null);
            }
            RuntimeException cause = ClientSupport.unwrap(err);
            if (attempts > 1 && cause instanceof ZkException.BadVersion) {
                return deleteEventually(client, path, owner, attempts - 1, true);
            }
            if ((cause instanceof ZkException.ConnectionLoss || cause instanceof ZkException.OperationTimeout)
                    && attempts > 1) {
                return Retries.whenConnected(client).thenCompose(x -> deleteEventually(client, path, owner, attempts - 1, true));
            }
            if (!(cause instanceof ZkException.NoNode || cause instanceof ZkException.SessionExpired
                    || cause instanceof ZkException.Closed)) {
                LOG.warn("could not delete {}: {}", path, cause.toString());
            }
            return CompletableFuture.<Void>completedFuture(null);
        }).thenCompose(f -> f);
    }

    /** Deletes the node at its current version if {@code owner} owns it; nothing if it is gone or someone else's. */
    private static CompletableFuture<Void> deleteIfOwned(ZkClient client, String path, long owner) {
        return client.existsAsync(path, null).thenCompose(stat -> stat == null || stat.ephemeralOwner() != owner
                ? CompletableFuture.<Void>completedFuture(null) : client.deleteAsync(path, stat.version()));
    }

    /**
     * Waits for a read that registers a watch. If the wait is interrupted while the read is still in flight, the
     * watch that the read registers when it completes is removed then, so an interrupted wait leaks no watch.
     */
    public static <T> T watchedRead(ZkClient client, CompletableFuture<T> read, String path, Watcher watcher,
                             WatcherType type) {
        try {
            return ClientSupport.await(read);
        } catch (ZkException.Interrupted e) {
            read.whenComplete((value, error) -> {
                if (error == null) {
                    client.removeWatchesAsync(path, watcher, type, true).exceptionally(x -> null);
                }
            });
            throw e;
        }
    }

    /** Removes a one-shot watch that has not fired, locally; ignores an interrupt of the calling thread. */
    public static void removeWatchQuietly(ZkClient client, String path, Watcher watcher, WatcherType type) {
        CompletableFuture<Void> f;
        try {
            f = client.removeWatchesAsync(path, watcher, type, true);
        } catch (RuntimeException e) {
            return;
        }
        awaitQuietly(client, f.exceptionally(e -> null));
    }

    /**
     * As {@link #awaitQuietly(CompletableFuture)}, but only while the client is connected: once it is disconnected
     * or closed the caller goes on at once (a delete goes on in the background; a closed client needs nothing).
     */
    public static void awaitQuietly(ZkClient client, CompletableFuture<?> f) {
        if (f.isDone()) {
            return;
        }
        CompletableFuture<Void> down = new CompletableFuture<>();
        ConnectionStateListener l = (c, s) -> {
            if (!s.isConnected()) {
                down.complete(null);
            }
        };
        client.addConnectionStateListener(l);
        try {
            if (!client.state().isConnected()) {
                return;
            }
            awaitQuietly(CompletableFuture.anyOf(f, down));
        } finally {
            client.removeConnectionStateListener(l);
        }
    }

    /** Waits a bounded time for a clean-up future, without throwing; an interrupt flag is restored afterwards. */
    public static void awaitQuietly(CompletableFuture<?> f) {
        boolean interrupted = Thread.interrupted();
        try {
            f.get(CLEANUP_WAIT_MS, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            interrupted = true;
        } catch (Exception e) {
            LOG.debug("clean-up did not finish: {}", e.toString());
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
