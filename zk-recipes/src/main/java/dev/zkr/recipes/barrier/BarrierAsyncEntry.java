package dev.zkr.recipes.barrier;

import dev.zkr.client.Children;
import dev.zkr.client.ClientSupport;
import dev.zkr.client.ConnectionState;
import dev.zkr.client.ConnectionStateListener;
import dev.zkr.client.CreateMode;
import dev.zkr.client.Op;
import dev.zkr.client.Parents;
import dev.zkr.client.Stat;
import dev.zkr.client.WatchedEvent;
import dev.zkr.client.Watcher;
import dev.zkr.client.WatcherType;
import dev.zkr.client.ZkClient;
import dev.zkr.client.ZkException;
import dev.zkr.client.ZkPaths;
import dev.zkr.recipes.internal.Cleanup;
import dev.zkr.recipes.internal.Retries;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/**
 * The enter protocol of {@link BarrierEntry} without a thread: each step is sent from the callback of the one
 * before. Create our member node (unless our session has it), {@code exists(ready, watch)}, list; open the barrier
 * if every party is there (ready and the lowest's mark in one multi, as the blocking form), else wait for ready's
 * creation. The same nodes and marks as the blocking form, so members of either kind meet at one barrier. Completes
 * (on the executor) with true once entered; completing it otherwise (cancel, timeout) removes our node and the watch.
 */
final class BarrierAsyncEntry {

    private static final byte[] LOWEST = "lowest".getBytes(StandardCharsets.UTF_8);

    private final BarrierMember member;
    private final ZkClient client;
    private final Executor executor;
    private final CompletableFuture<Boolean> result = new CompletableFuture<>();
    private final ConnectionStateListener onConnection = this::connectionChanged;
    private final Watcher onReady = this::readyEvent;
    // guarded by this
    private long epoch;
    private boolean over; // done() was called: the result completes on the executor
    private boolean watching; // our exists watch on ready may be registered

    private BarrierAsyncEntry(BarrierMember member, Executor executor) {
        this.member = member;
        this.client = member.client;
        this.executor = executor;
    }

    static CompletableFuture<Boolean> start(BarrierMember member, Executor executor) {
        BarrierAsyncEntry e = new BarrierAsyncEntry(member, executor);
        e.client.addConnectionStateListener(e.onConnection);
        e.result.whenComplete((v, err) -> e.finished(v != null && v));
        e.look();
        return e.result;
    }

    private synchronized void look() {
        if (result.isDone() || over) {
            return;
        }
        long e = ++epoch;
        if (client.isClosed()) {
            done(new ZkException.Closed(member.path, "the client is closed"));
            return;
        }
        if (!client.state().isConnected()) {
            Retries.whenConnected(client).thenRun(this::look);
            return;
        }
        long session = client.sessionId();
        if (member.session == session) {
            watchAndList(e);
            return;
        }
        client.createAsync(member.nodePath, BarrierMember.EMPTY, CreateMode.EPHEMERAL, Parents.CONTAINER)
                .whenComplete((c, err) -> {
                    synchronized (this) {
                        if (e != epoch || result.isDone()) {
                            if (err == null) { // made after we gave up or started over: ours to remove if given up
                                if (result.isDone() && !Boolean.TRUE.equals(result.getNow(false))) {
                                    Cleanup.deleteAsync(client, member.nodePath, c.stat().ephemeralOwner());
                                } else {
                                    member.session = c.stat().ephemeralOwner();
                                }
                            }
                            return;
                        }
                        if (err == null) {
                            member.session = c.stat().ephemeralOwner();
                            watchAndList(e);
                        } else if (ClientSupport.unwrap(err) instanceof ZkException.NodeExists) {
                            claimExisting(e, session);
                        } else {
                            failed(e, err);
                        }
                    }
                });
    }

    /** Our id's node exists: ours (a create whose answer was lost), another member's (in use), or gone meanwhile. */
    private void claimExisting(long e, long session) {
        client.existsAsync(member.nodePath, null).whenComplete((stat, err) -> {
            synchronized (this) {
                if (e != epoch || result.isDone()) {
                    return;
                }
                if (err != null) {
                    failed(e, err);
                } else if (stat == null) {
                    look(); // it went: create again
                } else if (stat.ephemeralOwner() == session) {
                    member.session = session;
                    watchAndList(e);
                } else {
                    done(member.inUse());
                }
            }
        });
    }

    private void watchAndList(long e) {
        watching = true;
        CompletableFuture<Stat> ready = client.existsAsync(member.readyPath, onReady);
        CompletableFuture<Children> listing = client.getChildrenAsync(member.path, null);
        listing.handle((x, y) -> null).thenRun(() -> {
            synchronized (this) {
                if (e != epoch || result.isDone()) {
                    return;
                }
                if (ready.isCompletedExceptionally()) {
                    failed(e, failure(ready));
                    return;
                }
                if (ready.join() != null) {
                    done(null); // open already
                    return;
                }
                if (listing.isCompletedExceptionally()) {
                    if (failure(listing) instanceof ZkException.NoNode) {
                        member.session = 0; // the barrier node went (an earlier round left): make ours again
                        look();
                    } else {
                        failed(e, failure(listing));
                    }
                    return;
                }
                List<String> members = BarrierMember.membersOf(listing.join().names());
                if (!members.contains(member.id)) {
                    member.session = 0; // our node went (expiry): make it again
                    look();
                } else if (members.size() >= member.parties) {
                    open(e, members);
                } // else: ready's creation wakes us
            }
        });
    }

    /** Opens the barrier: ready and the lowest's mark in one multi (ready alone if the lowest went meanwhile). */
    private void open(long e, List<String> members) {
        client.multiAsync(List.of(Op.create(member.readyPath, BarrierMember.EMPTY, CreateMode.PERSISTENT),
                Op.setData(ZkPaths.join(member.path, members.get(0)), LOWEST, -1))).whenComplete((r, err) -> {
                    RuntimeException cause = err == null ? null : ClientSupport.unwrap(err);
                    if (cause instanceof ZkException.NoNode) {
                        client.createAsync(member.readyPath, BarrierMember.EMPTY, CreateMode.PERSISTENT)
                                .whenComplete((c, err2) -> opened(e, err2));
                    } else {
                        opened(e, err);
                    }
                });
    }

    private synchronized void opened(long e, Throwable err) {
        if (e != epoch || result.isDone()) {
            return;
        }
        if (err == null || ClientSupport.unwrap(err) instanceof ZkException.NodeExists) {
            done(null);
        } else {
            failed(e, err);
        }
    }

    private synchronized void readyEvent(WatchedEvent event) {
        watching = false;
        if (result.isDone() || over) {
            return;
        }
        if (event.type() == WatchedEvent.Type.NODE_CREATED) {
            done(null);
        } else {
            look();
        }
    }

    private void connectionChanged(ZkClient c, ConnectionState s) {
        if (s == ConnectionState.RECONNECTED || s == ConnectionState.CONNECTED
                || (s == ConnectionState.LOST && client.isClosed())) {
            look();
        }
    }

    private void failed(long e, Throwable err) {
        RuntimeException cause = ClientSupport.unwrap(err);
        if (cause instanceof ZkException.ConnectionLoss || cause instanceof ZkException.OperationTimeout
                || cause instanceof ZkException.SessionExpired) {
            Retries.whenConnected(client).thenRun(this::look);
        } else {
            done(cause);
        }
    }

    /** Completes on the executor: entered ({@code failure} null) or failed. */
    private void done(Throwable failure) {
        epoch++;
        over = true;
        try {
            executor.execute(() -> {
                if (failure == null) {
                    result.complete(true);
                } else {
                    result.completeExceptionally(failure);
                }
            });
        } catch (RuntimeException rejected) {
            result.completeExceptionally(rejected);
        }
    }

    private void finished(boolean entered) {
        client.removeConnectionStateListener(onConnection);
        boolean unwatch;
        synchronized (this) {
            epoch++;
            unwatch = watching;
            watching = false;
        }
        if (unwatch) {
            try {
                client.removeWatchesAsync(member.readyPath, onReady, WatcherType.DATA, true).exceptionally(x -> null);
            } catch (RuntimeException ignored) {
                // the client is closing
            }
        }
        if (!entered) {
            long owner = member.session; // given up (cancel, timeout) or failed: leave no node behind
            member.session = 0;
            if (owner != 0) {
                Cleanup.deleteAsync(client, member.nodePath, owner);
            }
        }
    }

    private static Throwable failure(CompletableFuture<?> f) {
        try {
            f.join();
            return null;
        } catch (RuntimeException e) {
            return ClientSupport.unwrap(e);
        }
    }
}
