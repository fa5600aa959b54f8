package dev.zkr.recipes;

import dev.zkr.client.ConnectionStateListener;
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

    private boolean enter(Deadline deadline) {
        checkOpen();
        boolean entered = false;
        try {
            while (true) {
                ensureMember(deadline);
                Signal signal = new Signal();
                AtomicBoolean fired = new AtomicBoolean();
                Watcher watcher = e -> {
                    fired.set(true);
                    signal.fire();
                };
                ConnectionStateListener onState = (c, s) -> signal.fire();
                client.addConnectionStateListener(onState);
                try {
                    Stat ready = Connection.watchedRead(client, client.existsAsync(readyPath, watcher), readyPath, watcher, WatcherType.DATA);
                    if (ready == null) {
                        if (memberCount() >= parties) {
                            createReady();
                            entered = true;
                            return true;
                        }
                        if (!signal.await(deadline)) {
                            return false;
                        }
                        continue;
                    }
                    entered = true;
                    return true;
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

    private boolean leave(Deadline deadline) {
        checkOpen();
        try {
            while (true) {
                List<String> members = Connection.retrying(client, deadline, this::members);
                String mine = memberId;
                boolean present = members.contains(mine) && memberSession == client.sessionId();
                if (members.isEmpty()) {
                    cleanUpReady();
                    return true;
                }
                if (present && members.size() == 1) {
                    deleteMember(deadline);
                    cleanUpReady();
                    return true;
                }
                String lowest = members.get(0);
                String highest = members.get(members.size() - 1);
                String watch;
                if (present && lowest.equals(mine)) {
                    watch = highest;
                } else {
                    if (present) {
                        deleteMember(deadline);
                    }
                    watch = lowest;
                }
                if (!waitForDeletion(ZkPaths.join(path, watch), deadline)) {
                    return false;
                }
            }
        } catch (ZkException.ConnectionLoss e) {
            return false; // the deadline passed while disconnected
        }
    }

    private boolean waitForDeletion(String node, Deadline deadline) {
        Signal signal = new Signal();
        AtomicBoolean fired = new AtomicBoolean();
        Watcher watcher = e -> {
            fired.set(true);
            signal.fire();
        };
        ConnectionStateListener onState = (c, s) -> signal.fire();
        client.addConnectionStateListener(onState);
        try {
            Stat stat = Connection.watchedRead(client, client.existsAsync(node, watcher), node, watcher, WatcherType.DATA);
            if (stat == null) {
                fired.set(true); // exists on a missing node leaves a watch: remove it below
                Connection.removeWatchQuietly(client, node, watcher, WatcherType.DATA);
                return true;
            }
            return signal.await(deadline);
        } catch (ZkException.ConnectionLoss | ZkException.OperationTimeout e) {
            return Connection.recover(client, deadline);
        } finally {
            client.removeConnectionStateListener(onState);
            if (!fired.get()) {
                Connection.removeWatchQuietly(client, node, watcher, WatcherType.DATA);
            }
        }
    }

    /** Member ids present, sorted; the ready node excluded. */
    private List<String> members() {
        try {
            List<String> names = new ArrayList<>(client.getChildren(path));
            names.remove(READY);
            names.sort(null);
            return names;
        } catch (ZkException.NoNode e) {
            return List.of();
        }
    }

    private int memberCount() {
        return members().size();
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

    private void deleteMember(Deadline deadline) {
        long owner = memberSession;
        memberSession = 0;
        if (owner == client.sessionId()) {
            try {
                Connection.retrying(client, deadline, () -> client.delete(memberPath, -1));
            } catch (ZkException.NoNode e) {
                // gone already
            }
        }
    }

    /** The last one out removes the ready node (only while nobody is there). */
    private void cleanUpReady() {
        try {
            if (members().isEmpty()) {
                client.delete(readyPath, -1);
            }
        } catch (ZkException.NoNode | ZkException.ConnectionLoss e) {
            // already gone, or someone else will
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
