package dev.zkr.recipes;

import dev.zkr.client.AddWatchMode;
import dev.zkr.client.ClientSupport;
import dev.zkr.client.NodeData;
import dev.zkr.client.WatchedEvent;
import dev.zkr.client.ZkClient;
import dev.zkr.client.ZkException;

import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Consumer;

/**
 * A local, watch-maintained copy of one node (Curator's {@code NodeCache}). A persistent watch on the path reports
 * every creation, data change and deletion; a creation or change carries the node's data on zkr's own client (the
 * watch is set with data), anything else is answered by one {@code getData}, and events and answers are applied
 * in the order the server sent them (on the client's event thread), so the copy follows the node in zxid order and
 * never goes back. Listeners get the difference between the old and the new copy, in order: a node deleted and
 * created again between two reads is reported as DELETED then CREATED (a new czxid), never as a change.
 */
public final class NodeCache implements AutoCloseable {

    private final ZkClient client;
    private final String path;
    private final Lifecycle lifecycle = new Lifecycle("NodeCache");
    private final SerialExecutor serial;
    private final Listeners<Consumer<CacheEvent>> listeners;
    private final CacheWatch watch;
    private final CompletableFuture<Void> initialized = new CompletableFuture<>();
    private NodeData current; // guarded by this; null: no node

    NodeCache(ZkClient client, String path, Executor executor) {
        this.client = client;
        this.path = path;
        this.serial = new SerialExecutor(executor);
        this.listeners = new Listeners<>(serial);
        this.watch = new CacheWatch(client, path, AddWatchMode.PERSISTENT, this::onEvent, () -> read(true), lifecycle);
    }

    /** Sets the watch, reads the node and returns once the copy is initialised. */
    public NodeCache start() {
        lifecycle.start();
        watch.open();
        read(true); // if it fails, the read after RECONNECTED (or with a new session) initialises
        watch.awaitInitialized(initialized, this::close);
        return this;
    }

    /** The node as last read, if it exists (no round trip). */
    public synchronized Optional<NodeData> current() {
        return Optional.ofNullable(current);
    }

    /** Calls the listener with every change, in order, on the recipes' executor. */
    public void addListener(Consumer<CacheEvent> listener) {
        listeners.add(listener, null);
    }

    public void removeListener(Consumer<CacheEvent> listener) {
        listeners.remove(listener);
    }

    public String path() {
        return path;
    }

    private void onEvent(WatchedEvent e) {
        switch (e.type()) {
            case NODE_CREATED, NODE_DATA_CHANGED -> {
                if (e.data() != null) {
                    apply(e.data(), false); // the node as of the event's txn: no read
                } else {
                    read(false);
                }
            }
            case NODE_DELETED -> read(false);
            default -> { }
        }
    }

    /**
     * One read, applied when it answers (on the event thread; answers come in the order they were sent). A
     * {@code resync} read (start, reconnect, new session) ends with an INITIALIZED event.
     */
    private void read(boolean resync) {
        if (lifecycle.isClosed()) {
            return;
        }
        client.getDataAsync(path, null).whenComplete((data, err) -> {
            if (err == null) {
                apply(data, resync);
            } else if (ClientSupport.unwrap(err) instanceof ZkException.NoNode) {
                apply(null, resync);
            }
            // ConnectionLoss: read again on RECONNECTED (or with the new session)
        });
    }

    private void apply(NodeData now, boolean resync) {
        boolean kick = false;
        synchronized (this) {
            if (lifecycle.isClosed()) {
                return;
            }
            NodeData before = current;
            boolean first = !initialized.isDone();
            if (before != null && now != null && now.stat().mzxid() < before.stat().mzxid()) {
                now = before; // older than what we have: never go back
            }
            current = now;
            if (first) {
                // the initial copy is reported by INITIALIZED alone
            } else if (before == null && now != null) {
                kick |= emit(CacheEvent.Type.CREATED, now);
            } else if (before != null && now == null) {
                kick |= emit(CacheEvent.Type.DELETED, before);
            } else if (before != null) {
                if (now.stat().czxid() != before.stat().czxid()) {
                    kick |= emit(CacheEvent.Type.DELETED, before); // deleted and created again in between
                    kick |= emit(CacheEvent.Type.CREATED, now);
                } else if (!now.stat().equals(before.stat())) {
                    kick |= emit(CacheEvent.Type.CHANGED, now);
                }
            }
            if (resync) {
                kick |= emit(CacheEvent.Type.INITIALIZED, now);
            }
        }
        initialized.complete(null);
        if (kick) {
            serial.kick();
        }
    }

    /** Queues an event for the listeners; true if the caller must kick the serial executor. */
    private boolean emit(CacheEvent.Type type, NodeData data) {
        CacheEvent event = new CacheEvent(type, path, Optional.ofNullable(data));
        return serial.enqueue(() -> listeners.callAll(l -> l.accept(event)));
    }

    /** Removes the watch and the listeners. Idempotent. */
    @Override
    public void close() {
        if (!lifecycle.close()) {
            return;
        }
        listeners.clear();
        watch.close();
    }

    @Override
    public String toString() {
        return "NodeCache[" + path + "]";
    }
}
