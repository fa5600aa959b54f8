package dev.zkr.recipes;

import dev.zkr.client.Children;
import dev.zkr.client.ClientSupport;
import dev.zkr.client.ConnectionStateListener;
import dev.zkr.client.NodeData;
import dev.zkr.client.Op;
import dev.zkr.client.WatchedEvent;
import dev.zkr.client.CreateMode;
import dev.zkr.client.Parents;
import dev.zkr.client.Stat;
import dev.zkr.client.Watcher;
import dev.zkr.client.WatcherType;
import dev.zkr.client.ZkClient;
import dev.zkr.client.ZkException;
import dev.zkr.client.ZkPaths;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The classic double barrier. {@link #enter()} creates this member's ephemeral node and returns once
 * {@code parties} members are present (the last to arrive creates the {@code ready} node, which everyone else
 * watches: a broadcast by design). {@link #leave()} deletes the member node and returns once every member has
 * left or died: only the lowest member watches the highest, the others watch the lowest (no herd).
 *
 * <p>A member that dies is removed with its session: it counts as left. The last member to leave deletes the
 * ready node so the path can be reused for the next round (start a round only after the previous one left).
 * Not thread-safe: one barrier object per member.
 */
public final class DoubleBarrier implements AutoCloseable {

    static final String READY = "ready";

    private final ZkClient client;
    private final String path;
    private final String readyPath;
    private final String memberPath;
    private final String memberId;
    private final int parties;
    private volatile long memberSession;
    private volatile boolean closed;

    DoubleBarrier(ZkClient client, String path, int parties, String memberId) {
        this.client = client;
        this.path = path;
        this.parties = parties;
        this.memberId = memberId;
        this.readyPath = ZkPaths.join(path, READY);
        this.memberPath = ZkPaths.join(path, memberId);
    }

    /** Enters and waits until all parties have entered. Honours interrupts (the member node is removed). */
    public void enter() {
        enter(Deadline.NONE);
    }

    /** Enters and waits at most {@code timeout}; false on timeout (this member's node is then removed). */
    public boolean enter(Duration timeout) {
        return enter(Deadline.after(timeout));
    }

    /**
     * Round trips: the member create, then {@code exists(ready, watch)} and the listing pipelined (one round
     * trip); the last arrival creates {@code ready}, whose creation wakes the others through their exists watch
     * (no re-check).
     */
    private boolean enter(Deadline deadline) {
        checkOpen();
        boolean entered = false;
        try {
            while (true) {
                ensureMember(deadline);
                Signal signal = new Signal();
                AtomicBoolean fired = new AtomicBoolean();
                AtomicBoolean created = new AtomicBoolean();
                Watcher watcher = e -> {
                    if (e.type() == WatchedEvent.Type.NODE_CREATED) {
                        created.set(true);
                    }
                    fired.set(true);
                    signal.fire();
                };
                ConnectionStateListener onState = (c, s) -> signal.fire();
                client.addConnectionStateListener(onState);
                try {
                    CompletableFuture<Stat> readyF = client.existsAsync(readyPath, watcher);
                    CompletableFuture<Children> listing = client.getChildrenAsync(path, null);
                    Stat ready = Connection.watchedRead(client, readyF, readyPath, watcher, WatcherType.DATA);
                    if (ready != null) {
                        entered = true; // the barrier is already open (our watch on it is removed below)
                        return true;
                    }
                    List<String> members = membersOf(ClientSupport.await(listing).names());
                    if (members.size() >= parties) {
                        createReady(); // its event reaches our exists watch before the response: nothing to remove
                        entered = true;
                        return true;
                    }
                    if (!signal.await(deadline)) {
                        return false;
                    }
                    if (created.get()) {
                        entered = true;
                        return true;
                    }
                    // a connection change or another event: look again
                } catch (ZkException.NoNode e) {
                    // the barrier node went (everyone left an earlier round): ensureMember makes ours again
                    memberSession = 0;
                } catch (ZkException.ConnectionLoss | ZkException.OperationTimeout e) {
                    if (!Connection.recover(client, deadline)) {
                        return false;
                    }
                } catch (ZkException.SessionExpired e) {
                    if (!Connection.awaitConnected(client, deadline)) {
                        return false;
                    }
                } finally {
                    client.removeConnectionStateListener(onState);
                    if (!fired.get()) {
                        Connection.removeWatchQuietly(client, readyPath, watcher, WatcherType.DATA);
                    }
                }
            }
        } finally {
            if (!entered) {
                Connection.deleteQuietly(client, memberPath, memberSession);
            }
        }
    }

    /** Leaves and waits until every member has left or died. Honours interrupts. */
    public void leave() {
        leave(Deadline.NONE);
    }

    /** Leaves and waits at most {@code timeout} for the others; false on timeout (this member has left). */
    public boolean leave(Duration timeout) {
        return leave(Deadline.after(timeout));
    }

    /**
     * Round trips, for all but the lowest member: the listing, then {@code delete(own)}, {@code getData(ready,
     * watch)} and {@code getData(lowest, watch)} pipelined; the lowest, alone at last, deletes {@code ready} and
     * itself in one multi, which wakes everyone (no re-listing). The lowest watches the highest and lists again
     * when it goes. If the lowest dies, the others list again and go on with a new lowest.
     */
    private boolean leave(Deadline deadline) {
        checkOpen();
        ReadyWatch onReady = new ReadyWatch(); // fires when ready goes: everyone has left
        try {
            while (true) {
                List<String> members = Connection.retrying(client, deadline, this::members);
                if (onReady.gone.get()) {
                    return true; // its event came after the lowest's (the listing's response is later than both)
                }
                String mine = memberId;
                boolean present = members.contains(mine) && memberSession == client.sessionId();
                if (members.isEmpty() || present && members.size() == 1) {
                    lastOut(present, deadline);
                    return true;
                }
                String lowest = members.get(0);
                if (present && lowest.equals(mine)) {
                    if (!waitForDeletion(ZkPaths.join(path, members.get(members.size() - 1)), deadline)) {
                        return false;
                    }
                    continue;
                }
                Boolean done = awaitLastOut(present, ZkPaths.join(path, lowest), onReady, deadline);
                if (done == null) {
                    return false;
                }
                if (done) {
                    return true;
                }
            }
        } catch (ZkException.ConnectionLoss e) {
            return false; // the deadline passed while disconnected
        } finally {
            onReady.removeIfSet();
        }
    }

    /**
     * The last one out: deletes {@code ready} and its node (if present) together; {@code ready} first, so the
     * others' watches on it fire before their watches on our node.
     */
    private void lastOut(boolean present, Deadline deadline) {
        long owner = memberSession;
        memberSession = 0;
        if (present && owner == client.sessionId()) {
            try {
                Connection.retrying(client, deadline,
                        () -> client.multi(List.of(Op.delete(readyPath, -1), Op.delete(memberPath, -1))));
                return;
            } catch (ZkException.NoNode e) {
                // ready (or our node) is gone already: delete what is left below
                deleteMember(owner, deadline);
            }
        }
        try {
            client.delete(readyPath, -1);
        } catch (ZkException.NoNode | ZkException.ConnectionLoss e) {
            // already gone, or someone else will
        }
    }

    /**
     * Leaves (deleting our node if present) and waits for the last one out, who deletes {@code ready} (done:
     * true), or for the lowest member to go without it (it died: false, list again). Null on timeout.
     */
    private Boolean awaitLastOut(boolean present, String lowestPath, ReadyWatch onReady, Deadline deadline) {
        Signal signal = new Signal();
        onReady.signal = signal;
        AtomicBoolean lowestFired = new AtomicBoolean();
        Watcher onLowest = e -> {
            lowestFired.set(true);
            signal.fire();
        };
        ConnectionStateListener onState = (c, s) -> signal.fire();
        client.addConnectionStateListener(onState);
        boolean lowestSet = false;
        CompletableFuture<NodeData> ready = null;
        CompletableFuture<NodeData> lowest = null;
        try {
            long owner = memberSession;
            CompletableFuture<Void> deleted = null;
            if (present) {
                memberSession = 0;
                deleted = client.deleteAsync(memberPath, -1);
            }
            ready = client.getDataAsync(readyPath, onReady);
            lowest = client.getDataAsync(lowestPath, onLowest);
            if (deleted != null) {
                try {
                    ClientSupport.await(deleted);
                } catch (ZkException.NoNode gone) {
                    // gone already
                } catch (ZkException.ConnectionLoss | ZkException.OperationTimeout e) {
                    onReady.set |= settledWithData(ready);
                    lowestSet = settledWithData(lowest);
                    if (!Connection.recover(client, deadline)) {
                        return null;
                    }
                    deleteMember(owner, deadline);
                    return false; // list again
                }
            }
            if (!exists(ready)) {
                return true; // ready is gone: everyone has left
            }
            onReady.set = true;
            lowestSet = exists(lowest);
            if (!lowestSet) {
                lowestFired.set(true);
                return false; // the lowest left or died: look again
            }
            if (!signal.await(deadline)) {
                return null;
            }
            return onReady.gone.get();
        } catch (ZkException.ConnectionLoss | ZkException.OperationTimeout e) {
            return Connection.recover(client, deadline) ? false : null;
        } catch (ZkException.Interrupted e) {
            removeWhenRead(ready, readyPath, onReady); // reads still in flight register their watches later
            removeWhenRead(lowest, lowestPath, onLowest);
            throw e;
        } finally {
            client.removeConnectionStateListener(onState);
            if (lowestSet && !lowestFired.get() && !onReady.gone.get()) {
                Connection.removeWatchQuietly(client, lowestPath, onLowest, WatcherType.DATA);
            }
        }
    }

    /**
     * One leave's watch on {@code ready}: registered again (the same watcher: still one watch) on every look,
     * kept across them, removed when the leave ends if it never fired.
     */
    private final class ReadyWatch implements Watcher {
        final AtomicBoolean gone = new AtomicBoolean();
        volatile Signal signal;
        volatile boolean set;

        @Override
        public void process(WatchedEvent e) {
            set = false;
            if (e.type() == WatchedEvent.Type.NODE_DELETED) {
                gone.set(true);
            }
            Signal s = signal;
            if (s != null) {
                s.fire();
            }
        }

        void removeIfSet() {
            if (set && !gone.get()) {
                Connection.removeWatchQuietly(client, readyPath, this, WatcherType.DATA);
            }
        }
    }

    /** For a watched read still in flight when the wait is abandoned: removes its watch once it is registered. */
    private void removeWhenRead(CompletableFuture<NodeData> read, String node, Watcher watcher) {
        if (read != null && !read.isDone()) {
            read.whenComplete((d, err) -> {
                if (err == null) {
                    client.removeWatchesAsync(node, watcher, WatcherType.DATA, true).exceptionally(x -> null);
                }
            });
        }
    }

    /** Waits (bounded, quietly) for a read; true if it found its node (so a watch is set). */
    private static boolean settledWithData(CompletableFuture<NodeData> read) {
        Connection.awaitQuietly(read.exceptionally(x -> null));
        return read.isDone() && !read.isCompletedExceptionally();
    }

    /** True if the read found the node (a watch is then set), false on NoNode. */
    private static boolean exists(CompletableFuture<NodeData> read) {
        try {
            ClientSupport.await(read);
            return true;
        } catch (ZkException.NoNode e) {
            return false;
        }
    }

    private boolean waitForDeletion(String node, Deadline deadline) {
        NodeWatch watch = NodeWatch.open(client, node);
        try {
            return watch.read() == null || watch.await(deadline);
        } catch (ZkException.ConnectionLoss | ZkException.OperationTimeout e) {
            return Connection.recover(client, deadline);
        } finally {
            watch.close();
        }
    }

    /** Member ids present, sorted; the ready node excluded. */
    private List<String> members() {
        try {
            return membersOf(client.getChildren(path));
        } catch (ZkException.NoNode e) {
            return List.of();
        }
    }

    private static List<String> membersOf(List<String> children) {
        List<String> names = new ArrayList<>(children);
        names.remove(READY);
        names.sort(null);
        return names;
    }

    /** Creates our ephemeral member node unless our current session already owns it. */
    private void ensureMember(Deadline deadline) {
        long session = client.sessionId();
        if (memberSession == session) {
            return;
        }
        while (true) {
            try {
                client.create(memberPath, new byte[0], CreateMode.EPHEMERAL, Parents.CONTAINER);
                memberSession = session;
                return;
            } catch (ZkException.NodeExists e) {
                Stat stat = client.exists(memberPath);
                if (stat != null && stat.ephemeralOwner() == client.sessionId()) {
                    memberSession = stat.ephemeralOwner(); // a create whose response was lost
                    return;
                }
                if (stat != null) {
                    throw new IllegalStateException("member id " + memberId + " is in use at " + path);
                }
            } catch (ZkException.ConnectionLoss | ZkException.OperationTimeout e) {
                if (!Connection.recover(client, deadline)) {
                    throw e;
                }
            }
        }
    }

    private void createReady() {
        try {
            client.create(readyPath, new byte[0], CreateMode.PERSISTENT, Parents.CONTAINER);
        } catch (ZkException.NodeExists e) {
            // someone else made it
        }
    }

    private void deleteMember(long owner, Deadline deadline) {
        if (owner == client.sessionId()) {
            try {
                Connection.retrying(client, deadline, () -> client.delete(memberPath, -1));
            } catch (ZkException.NoNode e) {
                // gone already
            }
        }
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("barrier closed");
        }
    }

    public String path() {
        return path;
    }

    public String memberId() {
        return memberId;
    }

    public int parties() {
        return parties;
    }

    /** Removes this member's node if present. Idempotent. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        Connection.deleteQuietly(client, memberPath, memberSession);
    }
}
