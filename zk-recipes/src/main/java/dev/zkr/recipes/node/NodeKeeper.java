package dev.zkr.recipes.node;

import dev.zkr.client.ClientSupport;
import dev.zkr.client.ConnectionState;
import dev.zkr.client.ConnectionStateListener;
import dev.zkr.client.CreateMode;
import dev.zkr.client.Created;
import dev.zkr.client.NodeData;
import dev.zkr.client.Parents;
import dev.zkr.client.Watcher;
import dev.zkr.client.WatcherType;
import dev.zkr.client.ZkClient;
import dev.zkr.client.ZkException;
import dev.zkr.client.ZkPaths;
import dev.zkr.recipes.internal.Cleanup;
import dev.zkr.recipes.internal.Deadline;
import dev.zkr.recipes.internal.LostWrites;
import dev.zkr.recipes.internal.ProtectedNames;
import dev.zkr.recipes.internal.Retries;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

/**
 * Keeps one node present with the wanted data (Curator's {@code PersistentNode}). Every trigger (start, the node's
 * data watch, a connection event, a new wanted value) asks for one <em>reconcile</em>; reconciles run one at a time
 * on the executor and never wait for the connection (a connection event asks again). A reconcile reads the node
 * (setting the watch) and, as needed, creates it (with the latest wanted data, never the initial one once changed),
 * writes the wanted data at the version it read, or waits for another session's ephemeral node of the same name to
 * go (it is never deleted or taken over). Sequential modes use a protected name: a create whose response was lost
 * is found by its UUID, so there are never two copies.
 */
public final class NodeKeeper {

    private static final Logger LOG = LoggerFactory.getLogger(NodeKeeper.class);

    private final ZkClient client;
    private final String path; // the base path (sequential: parent + protected prefix + base)
    private final String parent;
    private final String prefix; // sequential modes: the protected prefix of our node's name
    private final CreateMode mode;
    private final Executor executor;
    /** The TTL of the child made with the node in one multi (the TTL variant's {@link TtlToucher#TOUCH}), or null. */
    private final java.time.Duration touchTtl;
    private final AtomicReference<byte[]> wanted;
    private final AtomicInteger requests = new AtomicInteger();
    private final Watcher watcher = e -> kick();
    private final ConnectionStateListener onConnection = this::connectionChanged;
    private final Object presence = new Object();
    // written by reconciles only (one at a time)
    private volatile String actualPath;
    private volatile long czxid;
    private volatile long owner;
    private volatile boolean present; // last reconcile: ours, with the wanted data
    private volatile boolean createLost;
    private volatile boolean closed;
    private volatile boolean held; // last reconcile: the node is there and ours (any data)
    private volatile boolean gone; // last reconcile: the node is not there, or someone else's
    /** If not 0: the node is kept in this session only, never made again by a later one ({@link #keepInSession}). */
    private volatile long onlySession;
    private volatile Runnable afterReconcile = () -> { };
    /**
     * The create {@link #start()} sent at once (a fixed-name node nobody made yet, the common case), taken by the
     * first reconcile (which then does not read first) or, if closed before that, by {@link #close()}.
     */
    private final AtomicReference<CompletableFuture<Created>> firstCreate = new AtomicReference<>();

    public NodeKeeper(ZkClient client, String path, CreateMode mode, byte[] data, Executor executor) {
        this(client, path, mode, data, executor, null);
    }

    /**
     * As above; with {@code touchTtl} every create of the node also creates its TTL child
     * {@link TtlToucher#TOUCH} in the same multi, so the node (a container) never exists without the child that
     * lets it expire (Curator's CURATOR-545: a crash between the two left a container that never goes).
     */
    public NodeKeeper(ZkClient client, String path, CreateMode mode, byte[] data, Executor executor,
                      java.time.Duration touchTtl) {
        this.client = client;
        this.touchTtl = touchTtl;
        this.mode = mode;
        this.executor = executor;
        this.wanted = new AtomicReference<>(data.clone());
        this.parent = ZkPaths.parent(path);
        if (mode.isSequential()) {
            this.prefix = ProtectedNames.newPrefix();
            this.path = ZkPaths.join(parent, prefix + ZkPaths.name(path));
        } else {
            this.prefix = null;
            this.path = path;
        }
    }

    /**
     * Before {@link #start()}: an ephemeral node kept within this session only; once it has ended the node is not
     * made again (a group member built with {@code rejoinAfterLost(false)}).
     */
    public NodeKeeper keepInSession(long session) {
        this.onlySession = session;
        return this;
    }

    /**
     * Before {@link #start()}: the (fixed-name, ephemeral) node was just made by the caller in {@code session};
     * it is kept from there, and {@link #close()} deletes it even if no reconcile has run yet.
     */
    public NodeKeeper adopt(long session) {
        if (mode.isSequential() || !mode.isEphemeral()) {
            throw new IllegalStateException("only a fixed-name ephemeral node is adopted");
        }
        this.actualPath = path;
        this.owner = session;
        return this;
    }

    /** Before {@link #start()}: called on the executor after every reconcile (to follow {@link #isHeld()}). */
    public NodeKeeper afterReconcile(Runnable callback) {
        this.afterReconcile = callback;
        return this;
    }

    /**
     * Starts keeping the node. A fixed-name node (not TTL, not adopted) is created at once from the caller's thread,
     * without the read that a reconcile starts with and without waiting for the executor: the first reconcile takes
     * that create's outcome (NodeExists: it reads, as any reconcile does) and reads the node back with its watch.
     */
    public void start() {
        client.addConnectionStateListener(onConnection);
        firstCreate.set(sendFirstCreate());
        kick();
    }

    private CompletableFuture<Created> sendFirstCreate() {
        if (mode.isSequential() || touchTtl != null || owner != 0 || !client.state().isConnected()
                || onlySession != 0 && onlySession != client.sessionId()) {
            return null;
        }
        try {
            return client.createAsync(path, wanted.get(), mode, Parents.CONTAINER);
        } catch (RuntimeException e) {
            return null; // e.g. closing: the reconcile creates (or fails) as usual
        }
    }

    private void connectionChanged(ZkClient c, ConnectionState s) {
        if (!s.isConnected()) {
            present = false;
        }
        kick();
    }

    /** Asks for a reconcile; reconciles run one at a time, several requests in a row coalesce. */
    public void kick() {
        if (requests.getAndIncrement() == 0) {
            try {
                executor.execute(this::drain);
            } catch (RuntimeException rejected) {
                requests.set(0);
            }
        }
    }

    private void drain() {
        int n;
        do {
            n = requests.get();
            if (!closed) {
                reconcileSafely();
            }
        } while (requests.addAndGet(-n) > 0);
    }

    private void reconcileSafely() {
        if (!client.state().isConnected()) {
            held = false;
            return; // the connection event asks again
        }
        try {
            reconcile();
        } catch (ZkException.ConnectionLoss | ZkException.OperationTimeout | ZkException.SessionExpired e) {
            unknown();
            Retries.whenConnected(client).thenRun(this::kick);
        } catch (ZkException.Closed e) {
            unknown();
        } catch (RuntimeException e) {
            unknown();
            LOG.warn("persistent node {}: {}", path, e.toString());
            Retries.whenConnected(client).thenRun(this::kick);
        }
        synchronized (presence) {
            presence.notifyAll();
        }
        try {
            afterReconcile.run();
        } catch (RuntimeException e) {
            LOG.warn("persistent node {}: callback failed", path, e);
        }
    }

    private void unknown() {
        present = false;
        held = false;
        gone = false;
    }

    private void seen(boolean ours) {
        held = ours;
        gone = !ours;
    }

    private void reconcile() {
        long session = client.sessionId();
        if (onlySession != 0 && session != onlySession) {
            present = false; // kept in its first session only: the node went with it
            seen(false);
            return;
        }
        if (mode.isEphemeral() && owner != 0 && owner != session) {
            actualPath = mode.isSequential() ? null : actualPath; // our node went with the old session
            owner = 0;
            createLost = false;
        }
        if (mode.isSequential() && actualPath == null && createLost) {
            adoptLost(session);
        }
        CompletableFuture<Created> sent = firstCreate.getAndSet(null);
        if (sent != null) {
            made(() -> ClientSupport.await(sent));
            return;
        }
        String at = mode.isSequential() ? actualPath : path;
        if (at != null) {
            NodeData d = readWatched(at);
            if (d != null) {
                if (mode.isEphemeral() && d.stat().ephemeralOwner() != session) {
                    present = false; // another session's node of that name: wait for it to go (the watch)
                    seen(false);
                    return;
                }
                if (!mode.isEphemeral() && czxid != 0 && d.stat().czxid() != czxid) {
                    czxid = d.stat().czxid(); // a persistent node made again by someone: keep it, with our data
                }
                actualPath = at;
                czxid = d.stat().czxid();
                owner = d.stat().ephemeralOwner();
                seen(true);
                byte[] want = wanted.get();
                if (!Arrays.equals(d.data(), want)) {
                    try {
                        client.setData(at, want, d.stat().version());
                    } catch (ZkException.BadVersion | ZkException.NoNode changed) {
                        kick(); // changed meanwhile: look again
                        return;
                    }
                    present = Arrays.equals(want, wanted.get());
                    if (!present) {
                        kick();
                    }
                    return;
                }
                present = true;
                return;
            }
            if (mode.isSequential()) {
                actualPath = null;
            }
        }
        seen(false); // not there (read back once made)
        create(session);
    }

    /** Reads the node with the data watch; null if it is not there (then no watch is left). */
    private NodeData readWatched(String at) {
        try {
            return Cleanup.watchedRead(client, client.getDataAsync(at, watcher), at, watcher, WatcherType.DATA);
        } catch (ZkException.NoNode gone) {
            return null;
        }
    }

    private void create(long session) {
        byte[] want = wanted.get();
        made(() -> touchTtl == null ? ClientSupport.await(client.createAsync(path, want, mode, Parents.CONTAINER))
                : createWithTouch(want));
    }

    /** Takes the outcome of a create of the node (made: read it back; there already: read it). */
    private void made(Supplier<Created> create) {
        Created c;
        try {
            c = create.get();
        } catch (ZkException.NodeExists e) {
            kick(); // a fixed name made meanwhile (by us, a lost create, or someone else): read it
            return;
        } catch (ZkException.ConnectionLoss | ZkException.OperationTimeout | ZkException.SessionExpired e) {
            // a persistent sequential node of a create in flight when the session was lost (zkr's client) stays
            createLost |= mode.isSequential() && LostWrites.mayHaveApplied(client, e);
            throw e;
        }
        actualPath = c.path();
        czxid = c.stat().czxid();
        owner = c.stat().ephemeralOwner();
        createLost = false;
        if (closed) {
            Cleanup.deleteAsync(client, c.path(), mode.isEphemeral() ? owner : 0); // closed while it was on its way
            return;
        }
        kick(); // read it back with the watch (and the latest wanted data)
    }

    /** The node and its TTL child in one multi, the node's missing parents (containers) made first. */
    private Created createWithTouch(byte[] want) {
        if (!"/".equals(parent)) {
            try {
                ClientSupport.await(client.createAsync(parent, new byte[0], CreateMode.CONTAINER, Parents.CONTAINER));
            } catch (ZkException.NodeExists there) {
                // the usual case
            }
        }
        List<dev.zkr.client.OpResult> results = client.multi(List.of(
                dev.zkr.client.Op.create(path, want, mode),
                dev.zkr.client.Op.create(ZkPaths.join(path, TtlToucher.TOUCH), new byte[0],
                        CreateMode.PERSISTENT_WITH_TTL, null, touchTtl)));
        dev.zkr.client.OpResult.CreateResult made = (dev.zkr.client.OpResult.CreateResult) results.get(0);
        return new Created(made.path(), made.stat() != null ? made.stat() : client.exists(made.path()));
    }

    /** After a lost create of a sequential node: our node, found by its UUID among the parent's children. */
    private void adoptLost(long session) {
        client.sync(parent);
        List<String> names;
        try {
            names = client.getChildren(parent);
        } catch (ZkException.NoNode e) {
            names = List.of();
        }
        createLost = false;
        for (String name : names) {
            if (name.startsWith(prefix)) {
                actualPath = ZkPaths.join(parent, name);
                return;
            }
        }
    }

    /** Sets the data the node must have; written now if connected, else when the connection is back. */
    public void setData(byte[] data) {
        wanted.set(data.clone());
        present = false;
        kick();
    }

    public byte[] data() {
        return wanted.get().clone();
    }

    /** The node's path once created (sequential modes: with its sequence number). */
    public Optional<String> actualPath() {
        return Optional.ofNullable(actualPath);
    }

    /** True if, as last seen, the node is ours (current session, for ephemerals) and has the wanted data. */
    public boolean isPresent() {
        return present && client.state().isConnected() && (!mode.isEphemeral() || owner == client.sessionId());
    }

    /**
     * True if, as last seen, the node is there and ours (current session, for ephemerals), whatever its data:
     * unlike {@link #isPresent()}, a data change on its way does not make it false.
     */
    public boolean isHeld() {
        return held && !closed && client.state().isConnected()
                && (!mode.isEphemeral() || owner == client.sessionId());
    }

    /** True if the last reconcile found the node missing or another session's (no answer counts as neither). */
    public boolean isGone() {
        return gone && !closed;
    }

    /** Waits until {@link #isPresent()} or the deadline; honours interrupts ({@code ZkException.Interrupted}). */
    public boolean await(Deadline deadline) {
        synchronized (presence) {
            while (!isPresent()) {
                if (closed || deadline.expired()) {
                    return false;
                }
                try {
                    presence.wait(Math.max(1, Math.min(100, deadline.remainingNanos() / 1_000_000)));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new ZkException.Interrupted(path, "interrupted while waiting for the node");
                }
            }
            return true;
        }
    }

    /**
     * Stops keeping the node and deletes it: only the node itself (never a parent: CURATOR-506), only if it is
     * ours (an ephemeral of our session; a persistent node we made or adopted, by its czxid). Returns once the
     * delete is done, or after a bounded wait while disconnected (it then goes on in the background).
     */
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        present = false;
        client.removeConnectionStateListener(onConnection);
        Cleanup.removeWatchQuietly(client, actualPath == null ? path : actualPath, watcher, WatcherType.DATA);
        CompletableFuture<Created> sent = firstCreate.getAndSet(null);
        if (sent != null) { // no reconcile took the first create: delete what it made (ours: this session's)
            Cleanup.awaitQuietly(client, sent.thenCompose(c -> Cleanup.deleteAsync(client, c.path(),
                    mode.isEphemeral() ? c.stat().ephemeralOwner() : 0)).exceptionally(x -> null));
            return;
        }
        String at = actualPath;
        if (at == null && mode.isSequential() && createLost) {
            ProtectedNames.abandonLost(client, parent, prefix, client.sessionId());
            return;
        }
        if (at == null) {
            return;
        }
        if (mode.isEphemeral()) {
            Cleanup.awaitQuietly(client, Cleanup.deleteAsync(client, at, owner));
        } else {
            long ours = czxid;
            Cleanup.awaitQuietly(client, client.existsAsync(at, null).thenCompose(stat ->
                    stat != null && stat.czxid() == ours ? client.deleteAsync(at, stat.version())
                            : java.util.concurrent.CompletableFuture.<Void>completedFuture(null))
                    .exceptionally(x -> null));
        }
    }
}
