package dev.zkr.recipes.node;

import dev.zkr.client.CreateMode;
import dev.zkr.client.ZkClient;
import dev.zkr.client.ZkException;
import dev.zkr.client.ZkPaths;
import dev.zkr.recipes.internal.Cleanup;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

/**
 * The TTL half of a TTL persistent node (Curator's {@code PersistentTtlNode}, same layout): the node itself is a
 * container kept by a {@link NodeKeeper}; under it a child {@value #TOUCH}, a TTL node, is written again every half
 * TTL. While the keeper lives the child never expires, so the container stays; once it stops (closed, or its process
 * gone) the child expires a TTL later and the server deletes the container it leaves empty. The node's own data and
 * version are never touched, so its watchers see no renewals. Renewals hold no thread: each is an asynchronous
 * call, the next scheduled with {@link CompletableFuture#delayedExecutor} onto the recipes' executor.
 */
public final class TtlToucher implements AutoCloseable {

    /** The child's name, as Curator's {@code PersistentTtlNode} names it. */
    public static final String TOUCH = "touch";

    private static final Logger LOG = LoggerFactory.getLogger(TtlToucher.class);
    private static final byte[] EMPTY = new byte[0];

    private final ZkClient client;
    private final NodeKeeper node;
    private final String touch;
    private final Duration ttl;
    private final Executor executor;
    private volatile boolean closed;

    public TtlToucher(ZkClient client, NodeKeeper node, String path, Duration ttl, Executor executor) {
        this.client = client;
        this.node = node;
        this.touch = ZkPaths.join(path, TOUCH);
        this.ttl = ttl;
        this.executor = executor;
    }

    public void start() {
        executor.execute(this::touchThenReschedule);
    }

    /**
     * One renewal, asynchronous end to end (no thread waits on the server, connected or not), then the next one half
     * a TTL later; renewals stop when closed or when the client is (its calls fail {@code Closed}).
     */
    private void touchThenReschedule() {
        if (closed) {
            return;
        }
        touch().whenComplete((outcome, unexpected) -> {
            Throwable cause = unexpected != null ? unexpected : outcome;
            if (cause instanceof ZkException.Closed) {
                return; // the client is closed: nothing more to renew with
            }
            if (cause != null) {
                LOG.debug("TTL node {}: renewal failed ({}); next in {} ms", touch, cause.toString(),
                        ttl.toMillis() / 2);
            }
            if (!closed) {
                CompletableFuture.runAsync(this::touchThenReschedule, CompletableFuture.delayedExecutor(
                        Math.max(1, ttl.toMillis() / 2), TimeUnit.MILLISECONDS, executor));
            }
        });
    }

    /**
     * Renews the child (its mtime restarts its TTL), making it when it is not there; completes with the failure that
     * ended the attempt, or null.
     */
    private CompletableFuture<Throwable> touch() {
        return client.setDataAsync(touch, EMPTY, -1).handle((stat, e) -> cause(e)).thenCompose(e -> {
            if (!(e instanceof ZkException.NoNode)) {
                return CompletableFuture.completedFuture(e);
            }
            return client.createAsync(touch, EMPTY, CreateMode.PERSISTENT_WITH_TTL, null, ttl).handle((c, e2) -> {
                Throwable f = cause(e2);
                if (f instanceof ZkException.NoNode) {
                    node.kick(); // the container is gone (expired while we could not renew): its keeper makes it
                    return null;
                }
                return f instanceof ZkException.NodeExists ? null : f; // NodeExists: an earlier attempt's, renewed
            });
        });
    }

    private static Throwable cause(Throwable e) {
        return e instanceof java.util.concurrent.CompletionException && e.getCause() != null ? e.getCause() : e;
    }

    /** Stops renewing and deletes the child, so the container goes with it (the keeper deletes it next). */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        Cleanup.awaitQuietly(client, Cleanup.deleteAsync(client, touch, 0));
    }
}
