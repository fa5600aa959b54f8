package dev.zkr.recipes;

import dev.zkr.client.ConnectionState;
import dev.zkr.client.ConnectionStateListener;
import dev.zkr.client.CreateMode;
import dev.zkr.client.Parents;
import dev.zkr.client.Stat;
import dev.zkr.client.ZkClient;
import dev.zkr.client.ZkException;
import dev.zkr.client.ZkPaths;
import dev.zkr.recipes.internal.Deadline;
import dev.zkr.recipes.internal.Retries;
import dev.zkr.recipes.node.NodeKeeper;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Membership in a group (Curator's {@code GroupMember}): this participant's ephemeral node
 * {@code <path>/<memberId>}, kept present with its data like a {@link PersistentNode} (made again after deletion by
 * others and, unless built with {@code rejoinAfterLost(false)}, after session expiry; never two copies; another
 * session's node of that name is never touched), and a live view of all members with their current data (a child
 * watch on the group and a data watch on each member). Listeners get joins, leaves (a crashed member leaves when its
 * session expires), data changes and this participant's own state, in order, on the recipes' executor.
 *
 * <p>A suspended connection makes our own membership uncertain; our node found missing or taken makes it lost until
 * it is ours again.
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
    private final ConnectionStateListener onConnection = this::connectionChanged;
    private final GroupView view;
    /** Keeps our member node once joined (null before). */
    private volatile NodeKeeper keeper;

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
        this.view = new GroupView(client, path, serial, listeners, lifecycle::isStarted);
    }

    void start() {
        lifecycle.start();
        client.addConnectionStateListener(onConnection);
        try {
            long session = Retries.retrying(client, Deadline.NONE, this::createMember);
            NodeKeeper k = new NodeKeeper(client, memberPath, CreateMode.EPHEMERAL, data, serial).adopt(session)
                    .afterReconcile(this::selfReconciled);
            keeper = rejoinAfterLost ? k : k.keepInSession(session);
            moveSelf(LeaseState.HELD);
            k.start();
            runOnSerial(view::refresh);
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    /** The first create, done by {@code join()} itself: an id in use by another session fails the join. */
    private long createMember() {
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
            return createMember(); // NodeExists with our session if the lost create was applied
        }
        return session;
    }

    /** After each look of the keeper at our node (serial executor): HELD once ours, LOST while missing or taken. */
    private void selfReconciled() {
        NodeKeeper k = keeper;
        if (k == null || !lifecycle.isStarted()) {
            return;
        }
        if (k.isHeld()) {
            moveSelf(LeaseState.HELD);
        } else if (k.isGone() && client.state().isConnected()) {
            moveSelf(LeaseState.LOST);
        }
    }

    private void connectionChanged(ZkClient c, ConnectionState s) {
        switch (s) {
            case SUSPENDED -> {
                if (self.compareAndSet(LeaseState.HELD, LeaseState.UNCERTAIN)) {
                    listeners.fire(l -> l.selfChanged(LeaseState.UNCERTAIN));
                }
            }
            case RECONNECTED -> serial.execute(() -> {
                kickKeeper(); // HELD again once it has seen our node
                view.refresh();
            });
            case LOST -> moveSelf(LeaseState.LOST);
            case CONNECTED -> serial.execute(() -> {
                moveSelf(LeaseState.LOST);
                kickKeeper(); // made again with the new session (rejoinAfterLost), before the view is read:
                serial.execute(view::refreshAll); // queued after the keeper's look
            });
        }
    }

    private void kickKeeper() {
        NodeKeeper k = keeper;
        if (k != null && lifecycle.isStarted()) {
            k.kick();
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

    /**
     * Sets this member's data: written to its node now if connected, else once the connection is back, and kept
     * when the node is made again (after deletion or expiry). Other members see it as
     * {@link GroupListener#memberChanged}.
     *
     * @throws IllegalStateException if closed
     */
    public void setData(byte[] data) {
        Objects.requireNonNull(data, "data");
        lifecycle.checkStarted();
        keeper.setData(data);
    }

    /** The data this member's node is kept with (the latest set). */
    public byte[] data() {
        NodeKeeper k = keeper;
        return k == null ? data.clone() : k.data();
    }

    /** The live view: the members present at the last change this participant saw, with their data, by id. */
    public List<Member> members() {
        return view.members();
    }

    /** The ids of the live view, sorted. */
    public List<String> memberIds() {
        return view.ids();
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
        NodeKeeper k = keeper;
        return self.get() == LeaseState.HELD && k != null && k.isHeld();
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

    /** Leaves the group (deletes the member node if it is ours) and removes every watch. Idempotent. */
    @Override
    public void close() {
        if (!lifecycle.close()) {
            return;
        }
        client.removeConnectionStateListener(onConnection);
        runOnSerial(() -> {
            view.close();
            NodeKeeper k = keeper;
            if (k != null) {
                k.close();
            }
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
        return "GroupMembership[" + path + ", id=" + memberId + ", members=" + view.ids() + "]";
    }
}
