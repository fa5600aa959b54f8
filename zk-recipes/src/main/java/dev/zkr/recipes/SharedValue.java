package dev.zkr.recipes;

import dev.zkr.client.ClientSupport;
import dev.zkr.client.ConnectionState;
import dev.zkr.client.ConnectionStateListener;
import dev.zkr.client.CreateMode;
import dev.zkr.client.NodeData;
import dev.zkr.client.Parents;
import dev.zkr.client.Stat;
import dev.zkr.client.WatchedEvent;
import dev.zkr.client.Watcher;
import dev.zkr.client.WatcherType;
import dev.zkr.client.ZkClient;
import dev.zkr.client.ZkException;
import dev.zkr.recipes.internal.Cleanup;
import dev.zkr.recipes.internal.Deadline;
import dev.zkr.recipes.internal.Retries;

import java.util.Arrays;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.function.Consumer;

/**
 * A value shared through one persistent node (Curator's {@code SharedValue}): a local copy kept current by a data
 * watch, a compare-and-set on the node's data version, and change listeners.
 *
 * <p>The copy only moves forward: a read replaces it only if its {@code mzxid} is newer (also when the node was
 * deleted and created again, which resets the version). Listeners are called in commit order, never with an older
 * value after a newer one; values written faster than a watch round trip are coalesced (a watch carries no data),
 * and after a disconnect or a new session the copy is read again, so listeners see at least the latest value.
 */
public final class SharedValue implements AutoCloseable {

    private final ZkClient client;
    private final String path;
    private final byte[] initial;
    private final Lifecycle lifecycle = new Lifecycle("SharedValue");
    private final SerialExecutor serial;
    private final Listeners<Consumer<VersionedValue>> listeners;
    private final Watcher watcher = this::onEvent;
    private final ConnectionStateListener onState = this::onState;
    private VersionedValue current; // guarded by this
    private long currentMzxid = Long.MIN_VALUE; // guarded by this

    SharedValue(ZkClient client, String path, byte[] initial, Executor executor) {
        this.client = client;
        this.path = path;
        this.initial = initial;
        this.serial = new SerialExecutor(executor);
        this.listeners = new Listeners<>(serial);
    }

    void start() {
        lifecycle.start();
        client.addConnectionStateListener(onState);
        Retries.retrying(client, Deadline.NONE, () -> {
            try {
                client.create(path, initial, CreateMode.PERSISTENT, Parents.CONTAINER);
            } catch (ZkException.NodeExists e) {
                // someone made it first (or our lost create did): theirs is the value
            }
        });
        NodeData data = Retries.retrying(client, Deadline.NONE, () -> client.getData(path, watcher));
        accept(data.data(), data.stat());
    }

    /** The local copy (no round trip). */
    public synchronized VersionedValue get() {
        lifecycle.checkStarted();
        return current;
    }

    /**
     * Sets the value if the node is still at {@code expectedVersion}; true if it was set. A set whose response was
     * lost is decided by reading the node again (our value at the next version: it was applied).
     */
    public boolean trySet(int expectedVersion, byte[] value) {
        lifecycle.checkStarted();
        Objects.requireNonNull(value, "value");
        while (true) {
            try {
                Stat stat = client.setData(path, value, expectedVersion);
                accept(value, stat);
                return true;
            } catch (ZkException.BadVersion | ZkException.NoNode e) {
                return false;
            } catch (ZkException.ConnectionLoss | ZkException.OperationTimeout | ZkException.SessionExpired e) {
                if (!Retries.recover(client, Deadline.NONE)) {
                    throw e;
                }
                NodeData now;
                try {
                    now = Retries.retrying(client, Deadline.NONE, () -> client.getData(path));
                } catch (ZkException.NoNode gone) {
                    return false;
                }
                if (now.stat().version() == expectedVersion + 1 && Arrays.equals(now.data(), value)) {
                    accept(now.data(), now.stat());
                    return true; // applied
                }
                if (now.stat().version() != expectedVersion) {
                    return false;
                }
                // not applied, still at the expected version: try again
            }
        }
    }

    /** Sets the value whatever the version. */
    public void set(byte[] value) {
        lifecycle.checkStarted();
        Objects.requireNonNull(value, "value");
        Stat stat = Retries.retrying(client, Deadline.NONE, () -> client.setData(path, value, -1));
        accept(value, stat);
    }

    /** Calls the listener with each newer value, in order, on the recipes' executor. */
    public void addListener(Consumer<VersionedValue> listener) {
        listeners.add(listener, null);
    }

    public void removeListener(Consumer<VersionedValue> listener) {
        listeners.remove(listener);
    }

    public String path() {
        return path;
    }

    private void onEvent(WatchedEvent e) {
        if (lifecycle.isClosed()) {
            return;
        }
        switch (e.type()) {
            case NODE_DATA_CHANGED, NODE_CREATED, NODE_DELETED -> read();
            default -> { }
        }
    }

    private void onState(ZkClient c, ConnectionState s) {
        if (s == ConnectionState.RECONNECTED || s == ConnectionState.CONNECTED) {
            read(); // changes made while we were away; a new session has no watch yet
        }
    }

    /** Reads with a watch, or (node gone) waits for it with an exists watch. Runs on the event thread, async. */
    private void read() {
        if (lifecycle.isClosed()) {
            return;
        }
        client.getDataAsync(path, watcher).whenComplete((data, err) -> {
            if (dropIfClosed(err)) {
                return;
            }
            if (err == null) {
                accept(data.data(), data.stat());
            } else if (ClientSupport.unwrap(err) instanceof ZkException.NoNode) {
                client.existsAsync(path, watcher).whenComplete((stat, err2) -> {
                    if (!dropIfClosed(err2) && err2 == null && stat != null) {
                        read(); // created in between
                    }
                });
            }
            // ConnectionLoss: read again on RECONNECTED
        });
    }

    /** A read that completes after close set a watch that close could not remove yet: remove it now. */
    private boolean dropIfClosed(Throwable err) {
        if (!lifecycle.isClosed()) {
            return false;
        }
        if (err == null) {
            client.removeWatchesAsync(path, watcher, WatcherType.DATA, true).exceptionally(x -> null);
        }
        return true;
    }

    private void accept(byte[] data, Stat stat) {
        VersionedValue v;
        boolean kick;
        synchronized (this) {
            if (stat.mzxid() <= currentMzxid) {
                return;
            }
            boolean first = current == null;
            currentMzxid = stat.mzxid();
            current = new VersionedValue(stat.version(), data);
            v = current;
            if (first) {
                return;
            }
            kick = serial.enqueue(() -> listeners.callAll(l -> l.accept(v)));
        }
        if (kick) {
            serial.kick();
        }
    }

    /** Stops watching; the node stays (it is the shared value). Idempotent. */
    @Override
    public void close() {
        if (!lifecycle.close()) {
            return;
        }
        client.removeConnectionStateListener(onState);
        listeners.clear();
        if (!client.isClosed()) {
            Cleanup.removeWatchQuietly(client, path, watcher, WatcherType.DATA);
        }
    }

    @Override
    public String toString() {
        return "SharedValue[" + path + "]";
    }
}
