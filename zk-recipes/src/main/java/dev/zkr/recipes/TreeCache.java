package dev.zkr.recipes;

import dev.zkr.client.AddWatchMode;
import dev.zkr.client.ClientSupport;
import dev.zkr.client.NodeData;
import dev.zkr.client.Stat;
import dev.zkr.client.WatchedEvent;
import dev.zkr.client.ZkClient;
import dev.zkr.client.ZkException;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * A local, watch-maintained copy of a subtree (Curator's {@code CuratorCache}). One persistent recursive watch on
 * the root reports every creation, data change and deletion below it; a creation or change carries the node's data
 * and Stat on zkr's own client (a watch set with data) or is answered by one {@code getData} (on ZooKeeper), a
 * deletion is applied as it comes (no read), and every event, answer and deletion is applied as a fact
 * about the server's state in the order the server sent them (on the
 * client's event thread), so the copy follows the subtree in zxid order and never goes back. A resynchronisation
 * (at start, after a reconnect, with a new session) walks the subtree ({@code getData} and {@code getChildren} of
 * every node, pipelined), reports the differences and ends with INITIALIZED. The structure and every Stat are
 * always kept; node data is kept with its node, or, when {@code maxDataBytes} is set, in a Caffeine cache bounded
 * by it and re-read by {@link #get} when it was evicted.
 */
public final class TreeCache implements AutoCloseable {

    private final ZkClient client;
    private final String root;
    private final Lifecycle lifecycle = new Lifecycle("TreeCache");
    private final SerialExecutor serial;
    private final Listeners<Consumer<CacheEvent>> listeners;
    private final CacheWatch watch;
    private final CompletableFuture<Void> initialized = new CompletableFuture<>();
    private final TreeState state; // guarded by this
    private int walk;              // guarded by this: the current resynchronisation
    private int walkPending;       // guarded by this: its requests not answered yet
    private boolean walkFailed;    // guarded by this: one of them failed (the next reconnect walks again)

    TreeCache(ZkClient client, String root, long maxDataBytes, Executor executor) {
        this.client = client;
        this.root = root;
        this.state = new TreeState(root, maxDataBytes);
        this.serial = new SerialExecutor(executor);
        this.listeners = new Listeners<>(serial);
        this.watch = new CacheWatch(client, root, AddWatchMode.PERSISTENT_RECURSIVE, this::onEvent, this::resync,
                lifecycle);
    }

    /** Sets the watch, walks the subtree and returns once the copy is initialised. */
    public TreeCache start() {
        lifecycle.start();
        watch.open();
        resync(); // if it fails, the walk after RECONNECTED (or with a new session) initialises
        watch.awaitInitialized(initialized, this::close);
        return this;
    }

    /**
     * The node with its data, if the copy holds the node: the data from memory, or read again from the server if
     * it was evicted (a blocking round trip, so never call it on the client's event thread; it then returns what
     * the server has, which may be newer than the copy, never older).
     */
    public Optional<NodeData> get(String path) {
        checkCovered(path);
        synchronized (this) {
            if (state.stat(path).isEmpty()) {
                return Optional.empty();
            }
            Optional<NodeData> local = state.local(path);
            if (local.isPresent()) {
                return local;
            }
        }
        NodeData read;
        try {
            read = client.getData(path);
        } catch (ZkException.NoNode gone) {
            return Optional.empty(); // deleted since: the event is on its way
        }
        synchronized (this) {
            state.reread(path, read);
        }
        return Optional.of(read);
    }

    /** The Stat of a node the copy holds (no round trip: Stats are never evicted). */
    public synchronized Optional<Stat> stat(String path) {
        checkCovered(path);
        return state.stat(path);
    }

    /** The names of the node's children in the copy, sorted; empty if the copy does not hold the node. */
    public synchronized List<String> children(String path) {
        checkCovered(path);
        return state.childrenOf(path);
    }

    /** How many nodes the copy holds. */
    public synchronized int size() {
        return state.size();
    }

    /** Bytes of node data held in memory now (at most {@code maxDataBytes}). */
    public synchronized long dataBytes() {
        return state.dataBytes();
    }

    /** Calls the listener with every change, in order, on the recipes' executor. */
    public void addListener(Consumer<CacheEvent> listener) {
        listeners.add(listener, null);
    }

    public void removeListener(Consumer<CacheEvent> listener) {
        listeners.remove(listener);
    }

    /** The root of the subtree. */
    public String path() {
        return root;
    }

    private void checkCovered(String path) {
        if (!state.covers(path)) {
            throw new IllegalArgumentException(path + " is not in the tree cache of " + root);
        }
    }

    /**
     * A creation or data change that carries the node's data is the fact itself (the node as of that event's txn);
     * one without is answered by one {@code getData}; a deletion is itself the fact (the node is gone as of that
     * event, which the server sent after every answer that could still show the node). Each is applied in order with
     * the answers (all arrive on the client's event thread, in the server's order).
     */
    private void onEvent(WatchedEvent e) {
        switch (e.type()) {
            case NODE_CREATED, NODE_DATA_CHANGED -> {
                if (e.data() != null) {
                    apply(() -> state.present(e.path(), e.data()));
                } else {
                    read(e.path(), -1);
                }
            }
            case NODE_DELETED -> apply(() -> state.absent(e.path()));
            default -> { }
        }
    }

    /** Starts a walk of the whole subtree; INITIALIZED follows when every request of it is answered. */
    private void resync() {
        int id;
        synchronized (this) {
            if (lifecycle.isClosed()) {
                return;
            }
            id = ++walk;
            walkPending = 0;
            walkFailed = false;
        }
        visit(root, id);
    }

    /** Reads one node and its children (pipelined) for walk {@code id}; each child is visited in turn. */
    private void visit(String path, int id) {
        if (lifecycle.isClosed()) {
            return;
        }
        sent(id, 2); // both counted before either is sent: an answer may come before the second is sent
        read(path, id);
        client.getChildrenAsync(path, null).whenComplete((children, err) -> {
            if (err == null) {
                apply(() -> state.children(path, children.names()));
                children.names().forEach(child -> visit(TreeState.childPath(path, child), id));
            } else if (ClientSupport.unwrap(err) instanceof ZkException.NoNode) {
                apply(() -> state.absent(path));
            } else {
                failed(id);
            }
            answered(id);
        });
    }

    /** One getData, applied when it answers; {@code id} is the walk it belongs to (-1: a watch event). */
    private void read(String path, int id) {
        if (lifecycle.isClosed()) {
            return;
        }
        client.getDataAsync(path, null).whenComplete((data, err) -> {
            if (err == null) {
                apply(() -> state.present(path, data));
            } else if (ClientSupport.unwrap(err) instanceof ZkException.NoNode) {
                apply(() -> state.absent(path));
            } else {
                failed(id); // ConnectionLoss: the walk after RECONNECTED (or with the new session) reads again
            }
            answered(id);
        });
    }

    private synchronized void sent(int id, int requests) {
        if (id == walk) {
            walkPending += requests;
        }
    }

    private synchronized void failed(int id) {
        if (id == walk) {
            walkFailed = true;
        }
    }

    /** Counts an answer of walk {@code id}; the last one of a walk that did not fail ends it with INITIALIZED. */
    private void answered(int id) {
        boolean kick = false;
        synchronized (this) {
            if (id != walk || lifecycle.isClosed() || --walkPending > 0 || walkFailed) {
                return;
            }
            walk++; // this walk is over: later answers of it (none) and events no longer count
            CacheEvent done = new CacheEvent(CacheEvent.Type.INITIALIZED, root, state.local(root)
                    .or(() -> state.stat(root).map(s -> new NodeData(new byte[0], s))));
            kick = serial.enqueue(() -> listeners.callAll(l -> l.accept(done)));
        }
        initialized.complete(null);
        if (kick) {
            serial.kick();
        }
    }

    /** Applies one fact and queues the events it makes, in order. */
    private void apply(Supplier<List<CacheEvent>> fact) {
        boolean kick = false;
        synchronized (this) {
            if (lifecycle.isClosed()) {
                return;
            }
            for (CacheEvent event : fact.get()) {
                kick |= serial.enqueue(() -> listeners.callAll(l -> l.accept(event)));
            }
        }
        if (kick) {
            serial.kick();
        }
    }

    /** Removes the watch and the listeners and drops the copy. Idempotent. */
    @Override
    public void close() {
        if (!lifecycle.close()) {
            return;
        }
        listeners.clear();
        watch.close();
        synchronized (this) {
            state.clear();
        }
    }

    @Override
    public String toString() {
        return "TreeCache[" + root + "]";
    }
}
