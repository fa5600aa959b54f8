package dev.zkr.recipes;

import dev.zkr.client.Children;
import dev.zkr.client.ConnectionState;
import dev.zkr.client.ConnectionStateListener;
import dev.zkr.client.CreateMode;
import dev.zkr.client.NodeData;
import dev.zkr.client.Parents;
import dev.zkr.client.Stat;
import dev.zkr.client.Watcher;
import dev.zkr.client.WatcherType;
import dev.zkr.client.ZkClient;
import dev.zkr.client.ZkException;
import dev.zkr.client.ZkPaths;
import dev.zkr.recipes.internal.Cleanup;
import dev.zkr.recipes.internal.Deadline;
import dev.zkr.recipes.internal.Retries;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Membership in a group: this participant's ephemeral node {@code <path>/<memberId>} and a live view of all
 * members, kept current by a child watch (re-read on every change; on reconnect; on a new session). Listeners get
 * joins and leaves (a crashed member leaves when its session expires) in order, on the recipes' executor.
 *
 * <p>A suspended connection makes our own membership uncertain; after session expiry we rejoin with the new
 * session (unless built with {@code rejoinAfterLost(false)}).
 */
public final class GroupMembership implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(GroupMembership.class);
    private static final long WAIT_MS = 30_000;

    private final ZkClient client;
    private final String path;
    private final String memberId;
    private final String memberPath;
    private final byte[] data;
    private final boolean rejoinAfterLost;
    private final SerialExecutor serial;
    private final Listeners<GroupListener> listeners;
    private final Lifecycle lifecycle = new Lifecycle("GroupMembership");
    private final AtomicReference<LeaseState> self = new AtomicReference<>(LeaseState.UNCERTAIN);
    private final Watcher childWatcher = e -> scheduleRefresh();
    private final Watcher existsWatcher = e -> scheduleRefresh();
    private final ConnectionStateListener onConnection = this::connectionChanged;
    private volatile Map<String, Member> view = Map.of();
    private volatile long memberSession;

    GroupMembership(ZkClient client, String path, String memberId, byte[] data, boolean rejoinAfterLost,
                    Executor executor) {
        this.client = client;
        this.path = path;
        this.memberId = memberId;
        this.memberPath = ZkPaths.join(path, memberId);
        this.data = data;
        this.rejoinAfterLost = rejoinAfterLost;
        this.serial = new SerialExecutor(executor);
        this.listeners = new Listeners<>(serial);
    }

    void start() {
        lifecycle.start();
        client.addConnectionStateListener(onConnection);
        try {
            Retries.retrying(client, Deadline.NONE, this::createMember);
            runOnSerial(this::refresh);
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    private void createMember() {
        long session = client.sessionId();
        try {
            client.create(memberPath, data, CreateMode.EPHEMERAL, Parents.CONTAINER);
        } catch (ZkException.NodeExists e) {
            Stat stat = client.exists(memberPath);
            if (stat == null) {
                throw new ZkException.ConnectionLoss(memberPath, "member node vanished, retry"); // retried
            }
            if (stat.ephemeralOwner() != session) {
                throw new IllegalStateException("member id " + memberId + " is already in use in " + path);
            }
        } catch (ZkException.ConnectionLoss | ZkException.OperationTimeout e) {
            if (!Retries.recover(client, Deadline.NONE)) {
                throw e;
            }
            createMember(); // NodeExists with our session if the lost create was applied
            return;
        }
        memberSession = session;
        moveSelf(LeaseState.HELD);
    }

    private void connectionChanged(ZkClient c, ConnectionState s) {
        switch (s) {
            case SUSPENDED -> {
                if (self.compareAndSet(LeaseState.HELD, LeaseState.UNCERTAIN)) {
                    listeners.fire(l -> l.selfChanged(LeaseState.UNCERTAIN));
                }
            }
            case RECONNECTED -> serial.execute(() -> {
                verifySelf();
                refresh();
            });
            case LOST -> moveSelf(LeaseState.LOST);
            case CONNECTED -> serial.execute(() -> {
                moveSelf(LeaseState.LOST);
                if (rejoinAfterLost && lifecycle.isStarted()) {
                    try {
                        Retries.retrying(client, Deadline.NONE, this::createMember);
                    } catch (RuntimeException e) {
                        LOG.warn("group {}: could not rejoin as {}: {}", path, memberId, e.toString());
                    }
                }
                refresh();
            });
        }
    }

    private void verifySelf() {
        if (!lifecycle.isStarted() || memberSession != client.sessionId()) {
            return;
        }
        try {
            Stat stat = client.exists(memberPath);
            if (stat != null && stat.ephemeralOwner() == memberSession) {
                moveSelf(LeaseState.HELD);
            } else {
                moveSelf(LeaseState.LOST);
            }
        } catch (ZkException e) {
            // still unsure; the next connection change decides
        }
    }

    private void moveSelf(LeaseState to) {
        if (lifecycle.isClosed() && to != LeaseState.RELEASED) {
            return;
        }
        LeaseState before = self.getAndSet(to);
        if (before != to) {
            listeners.fire(l -> l.selfChanged(to));
        }
    }

    private void scheduleRefresh() {
        if (lifecycle.isStarted()) {
            serial.execute(this::refresh);
        }
    }

    /** Re-reads the children (re-arming the watch) and reports the differences. Runs on the serial executor. */
    private void refresh() {
        if (!lifecycle.isStarted()) {
            return;
        }
        List<String> names;
        try {
            Children children = Cleanup.watchedRead(client, client.getChildrenAsync(path, childWatcher), path,
                    childWatcher, WatcherType.CHILDREN);
            names = children.names();
        } catch (ZkException.NoNode e) {
            try {
                Stat stat = Cleanup.watchedRead(client, client.existsAsync(path, existsWatcher), path,
                        existsWatcher, WatcherType.DATA);
                if (stat != null) {
                    Cleanup.removeWatchQuietly(client, path, existsWatcher, WatcherType.DATA);
                    scheduleRefresh();
                    return;
                }
            } catch (ZkException other) {
                return;
            }
            names = List.of();
        } catch (ZkException.ConnectionLoss | ZkException.OperationTimeout | ZkException.SessionExpired e) {
            return; // refreshed again on RECONNECTED / CONNECTED
        } catch (ZkException.Closed e) {
            return;
        }
        Map<String, Member> old = view;
        Map<String, Member> next = new TreeMap<>();
        List<Member> joined = new ArrayList<>();
        for (String name : names) {
            Member m = old.get(name);
            if (m == null) {
                try {
                    NodeData d = client.getData(ZkPaths.join(path, name));
                    m = new Member(name, d.data());
                    joined.add(m);
                } catch (ZkException.NoNode gone) {
                    continue;
                } catch (ZkException e) {
                    scheduleRefresh();
                    continue;
                }
            }
            next.put(name, m);
        }
        List<Member> left = new ArrayList<>();
        for (Map.Entry<String, Member> e : old.entrySet()) {
            if (!next.containsKey(e.getKey())) {
                left.add(e.getValue());
            }
        }
        view = Collections.unmodifiableMap(next);
        for (Member m : left) {
            listeners.fire(l -> l.memberLeft(m));
        }
        for (Member m : joined) {
            listeners.fire(l -> l.memberJoined(m));
        }
    }

    /** The live view: the members present at the last change this participant saw, sorted by id. */
    public List<Member> members() {
        return List.copyOf(view.values());
    }

    /** The ids of the live view, sorted. */
    public List<String> memberIds() {
        return List.copyOf(view.keySet());
    }

    /** Adds a listener called on the recipes' executor, in order. */
    public void addListener(GroupListener listener) {
        listeners.add(listener, null);
    }

    /**
     * Adds a listener called on the given executor. Calls are handed over in order; keep them ordered by using a
     * single-threaded executor.
     */
    public void addListener(GroupListener listener, Executor executor) {
        listeners.add(listener, executor == null ? null : new SerialExecutor(executor));
    }

    public void removeListener(GroupListener listener) {
        listeners.remove(listener);
    }

    /** True while this participant's membership is certain (its node is owned by the current session). */
    public boolean isMember() {
        return self.get() == LeaseState.HELD && memberSession == client.sessionId()
                && client.state().isConnected();
    }

    /** This participant's own membership state. */
    public LeaseState state() {
        return self.get();
    }

    public String memberId() {
        return memberId;
    }

    public String path() {
        return path;
    }

    /** Leaves the group (deletes the member node) and removes every watch. Idempotent. */
    @Override
    public void close() {
        if (!lifecycle.close()) {
            return;
        }
        client.removeConnectionStateListener(onConnection);
        runOnSerial(() -> {
            Cleanup.removeWatchQuietly(client, path, childWatcher, WatcherType.CHILDREN);
            Cleanup.removeWatchQuietly(client, path, existsWatcher, WatcherType.DATA);
            Cleanup.deleteQuietly(client, memberPath, memberSession);
        });
        moveSelf(LeaseState.RELEASED);
        listeners.clear();
    }

    private void runOnSerial(Runnable task) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        serial.execute(() -> {
            try {
                task.run();
                done.complete(null);
            } catch (RuntimeException e) {
                done.completeExceptionally(e);
            }
        });
        try {
            done.get(WAIT_MS, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ZkException.Interrupted(path, "interrupted");
        } catch (java.util.concurrent.ExecutionException e) {
            throw dev.zkr.client.ClientSupport.unwrap(e.getCause());
        } catch (java.util.concurrent.TimeoutException e) {
            LOG.warn("group {}: background task did not finish in time", path);
        }
    }

    @Override
    public String toString() {
        return "GroupMembership[" + path + ", id=" + memberId + ", members=" + view.keySet() + "]";
    }
}
