package dev.zkr.client;

import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/** Shared client logic that sits on top of the primitives of {@link ZkClient}, for every implementation. */
public final class ClientSupport {

    private ClientSupport() {
    }

    /**
     * Waits for a future of a client operation and returns its value; throws its {@link ZkException} unwrapped.
     * An interrupt cancels the wait (not the operation), keeps the interrupt flag and throws
     * {@link ZkException.Interrupted}.
     */
    public static <T> T await(CompletableFuture<T> future) {
        try {
            return future.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ZkException.Interrupted(null, "interrupted while waiting for a response");
        } catch (ExecutionException e) {
            throw unwrap(e.getCause());
        } catch (CancellationException e) {
            throw new ZkException.Interrupted(null, "operation cancelled");
        }
    }

    /** The ZkException inside a (possibly wrapped) failure; other throwables become SYSTEM_ERROR. */
    public static RuntimeException unwrap(Throwable t) {
        while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
            t = t.getCause();
        }
        if (t instanceof ZkException z) {
            return z;
        }
        if (t instanceof RuntimeException r && !(t instanceof CompletionException)) {
            return r;
        }
        ZkException z = new ZkException.SystemError(null, String.valueOf(t));
        z.initCause(t);
        return z;
    }

    /** A future already failed with the given exception. */
    public static <T> CompletableFuture<T> failed(Throwable t) {
        return CompletableFuture.failedFuture(t);
    }

    /**
     * Creates a node, creating missing parents first when asked. Parents that appear concurrently are fine;
     * parents that vanish concurrently (containers being cleaned up) are recreated, a few times.
     */
    static CompletableFuture<Created> createWithParents(ZkClient client, String path, byte[] data, CreateMode mode,
                                                       Parents parents) {
        if (parents == null || parents == Parents.NONE) {
            return client.createAsync(path, data, mode);
        }
        try {
            ZkPaths.validate(path, mode.isSequential());
        } catch (ZkException e) {
            return failed(e);
        }
        CreateMode parentMode = parents == Parents.CONTAINER ? CreateMode.CONTAINER : CreateMode.PERSISTENT;
        return createRetrying(client, path, data, mode, parentMode, 5);
    }

    private static CompletableFuture<Created> createRetrying(ZkClient client, String path, byte[] data,
                                                            CreateMode mode, CreateMode parentMode, int attempts) {
        return client.createAsync(path, data, mode).handle((created, error) -> {
            if (error == null) {
                return CompletableFuture.completedFuture(created);
            }
            Throwable cause = unwrap(error);
            if (!(cause instanceof ZkException.NoNode) || attempts <= 1) {
                return CompletableFuture.<Created>failedFuture(cause);
            }
            String parent = path.endsWith("/") ? path.substring(0, path.length() - 1) : ZkPaths.parent(path);
            return ensurePath(client, parent, parentMode)
                    .thenCompose(v -> createRetrying(client, path, data, mode, parentMode, attempts - 1));
        }).thenCompose(f -> f);
    }

    /** Creates the path and its missing ancestors as empty nodes of the given mode; existing nodes are fine. */
    public static CompletableFuture<Void> ensurePath(ZkClient client, String path, CreateMode mode) {
        if (path == null || "/".equals(path)) {
            return CompletableFuture.completedFuture(null);
        }
        return client.createAsync(path, new byte[0], mode).handle((created, error) -> {
            if (error == null) {
                return CompletableFuture.<Void>completedFuture(null);
            }
            Throwable cause = unwrap(error);
            if (cause instanceof ZkException.NodeExists) {
                return CompletableFuture.<Void>completedFuture(null);
            }
            if (cause instanceof ZkException.NoNode) {
                return ensurePath(client, ZkPaths.parent(path), mode)
                        .thenCompose(v -> client.createAsync(path, new byte[0], mode).handle((c, e) -> {
                            if (e == null || unwrap(e) instanceof ZkException.NodeExists) {
                                return (Void) null;
                            }
                            throw new CompletionException(unwrap(e));
                        }));
            }
            return CompletableFuture.<Void>failedFuture(cause);
        }).thenCompose(f -> f);
    }
}
