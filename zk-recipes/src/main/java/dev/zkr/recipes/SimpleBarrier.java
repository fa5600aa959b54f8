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
import java.util.concurrent.atomic.AtomicLong;

/**
 * A one-shot barrier on one node (Curator's {@code DistributedBarrier}): while the node exists, waiters wait; they
 * return when it is removed, or, for a barrier set with {@link #setEphemeralBarrier()}, when its owner's session
 * ends. Each waiter watches the node itself (a broadcast by design: everyone goes when it goes).
 */
public final class SimpleBarrier implements AutoCloseable {

    private final ZkClient client;
    private final String path;
    private final Signal closed = new Signal();
    private final AtomicLong ephemeralOwner = new AtomicLong(); // session of an ephemeral barrier we set, or 0

    SimpleBarrier(ZkClient client, String path) {
        this.client = client;
        this.path = path;
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
