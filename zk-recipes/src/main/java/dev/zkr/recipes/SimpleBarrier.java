package dev.zkr.recipes;

import dev.zkr.client.CreateMode;
import dev.zkr.client.Parents;
import dev.zkr.client.ZkClient;
import dev.zkr.client.ZkException;
import dev.zkr.recipes.internal.Cleanup;
import dev.zkr.recipes.internal.Deadline;
import dev.zkr.recipes.internal.Retries;
import dev.zkr.recipes.internal.Signal;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A one-shot barrier on one node (Curator's {@code DistributedBarrier}): while the node exists, waiters wait; they
 * return when it is removed, or, for a barrier set with {@link #setEphemeralBarrier()}, when its owner's session
 * ends. Each waiter watches the node itself (a broadcast by design: everyone goes when it goes).
 */
public final class SimpleBarrier implements AutoCloseable {

    private final ZkClient client;
    private final String path;
    private final Executor executor;
    private final Signal closed = new Signal();
    private final AtomicLong ephemeralOwner = new AtomicLong(); // session of an ephemeral barrier we set, or 0
    private final Set<CompletableFuture<Void>> pending = ConcurrentHashMap.newKeySet(); // async waits, ended by close

    SimpleBarrier(ZkClient client, String path, Executor executor) {
        this.client = client;
        this.path = path;
        this.executor = executor;
    }

    /** Sets the barrier as a persistent node (parents as containers); true if this call created it. */
    public boolean setBarrier() {
        return set(CreateMode.PERSISTENT);
    }

    /**
     * Sets the barrier as an ephemeral node of this client's session: it falls when the session ends (the owner
     * crashes) or when this barrier is closed. True if this call created it.
     */
    public boolean setEphemeralBarrier() {
        boolean created = set(CreateMode.EPHEMERAL);
        if (created) {
            ephemeralOwner.set(client.sessionId());
        }
        return created;
    }

    private boolean set(CreateMode mode) {
        checkOpen();
        return Retries.retrying(client, Deadline.NONE, () -> {
            try {
                client.create(path, new byte[0], mode, Parents.CONTAINER);
                return true;
            } catch (ZkException.NodeExists e) {
                // set already (by someone, or by our create whose response was lost)
                return mode == CreateMode.EPHEMERAL && client.exists(path) != null
                        && client.exists(path).ephemeralOwner() == client.sessionId();
            }
        });
    }

    /** Removes the barrier (whoever set it): every waiter returns. No-op if it is not set. */
    public void removeBarrier() {
        checkOpen();
        Retries.retrying(client, Deadline.NONE, () -> {
            try {
                client.delete(path, -1);
            } catch (ZkException.NoNode e) {
                // not set, or our delete whose response was lost went through
            }
        });
        ephemeralOwner.set(0);
    }

    /** Waits until the barrier is not set. Honours interrupts ({@link ZkException.Interrupted}, no watch left). */
    public void waitOnBarrier() {
        if (!waitOnBarrier(Deadline.NONE.cancelledBy(closed))) {
            throw new IllegalStateException("the barrier was closed while waiting");
        }
    }

    /** Waits at most {@code timeout} until the barrier is not set; false on timeout (or close). */
    public boolean waitOnBarrier(Duration timeout) {
        return waitOnBarrier(Deadline.after(timeout).cancelledBy(closed));
    }

    /**
     * As {@link #waitOnBarrier()} without a thread: completes (on the recipes' executor) once the barrier is not set;
     * fails with {@link IllegalStateException} if the barrier is or gets closed, with {@link ZkException.Closed} if the
     * client is closed. It waits through lost connections and session expiry, as the blocking form does. Cancel it
     * to stop waiting: its watch is removed.
     */
    public CompletableFuture<Void> waitOnBarrierAsync() {
        checkOpen();
        return track(NodeGoneWait.start(client, path, executor));
    }

    /**
     * As {@link #waitOnBarrier(Duration)} without a thread: true once the barrier is not set, false once
     * {@code timeout} passes or the barrier is closed (the watch is then removed). Cancel it to stop waiting.
     */
    public CompletableFuture<Boolean> waitOnBarrierAsync(Duration timeout) {
        checkOpen();
        CompletableFuture<Void> gone = track(NodeGoneWait.start(client, path, executor));
        CompletableFuture<Boolean> out = gone.handle((v, err) -> {
            if (err == null) {
                return true;
            }
            if (err instanceof TimeoutException || err instanceof IllegalStateException) {
                return false;
            }
            throw err instanceof CompletionException ce ? ce : new CompletionException(err);
        });
        out.whenComplete((v, err) -> {
            if (err != null) {
                gone.cancel(false); // the caller gave up
            }
        });
        CompletableFuture.delayedExecutor(Math.max(0, timeout.toNanos()), TimeUnit.NANOSECONDS, executor)
                .execute(() -> gone.completeExceptionally(new TimeoutException()));
        return out;
    }

    /** Registers an asynchronous wait so that close() ends it (a close that came first ends it at once). */
    private CompletableFuture<Void> track(CompletableFuture<Void> wait) {
        pending.add(wait);
        wait.whenComplete((v, err) -> pending.remove(wait));
        if (closed.isFired()) {
            wait.completeExceptionally(new IllegalStateException("the barrier was closed while waiting"));
        }
        return wait;
    }

    private boolean waitOnBarrier(Deadline deadline) {
        checkOpen();
        boolean first = true;
        while (first || !deadline.expired()) {
            first = false;
            NodeWatch watch = NodeWatch.open(client, path);
            try {
                if (watch.read() == null) {
                    return true;
                }
                watch.await(deadline); // deleted, changed, or a connection event: look again
            } catch (ZkException.ConnectionLoss | ZkException.OperationTimeout e) {
                Retries.recover(client, deadline);
            } catch (ZkException.SessionExpired e) {
                Retries.awaitConnected(client, deadline);
            } finally {
                watch.close();
            }
        }
        return false;
    }

    public String path() {
        return path;
    }

    private void checkOpen() {
        if (closed.isFired()) {
            throw new IllegalStateException("the barrier is closed");
        }
    }

    /** Ends waits in progress (they return false) and removes an ephemeral barrier this object set. Idempotent. */
    @Override
    public void close() {
        if (closed.isFired()) {
            return;
        }
        closed.fire();
        for (CompletableFuture<Void> wait : List.copyOf(pending)) {
            wait.completeExceptionally(new IllegalStateException("the barrier was closed while waiting"));
        }
        long owner = ephemeralOwner.getAndSet(0);
        if (owner != 0 && !client.isClosed()) {
            Cleanup.deleteQuietly(client, path, owner);
        }
    }

    @Override
    public String toString() {
        return "SimpleBarrier[" + path + "]";
    }
}
