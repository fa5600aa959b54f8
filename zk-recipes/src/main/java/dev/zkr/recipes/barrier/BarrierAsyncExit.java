package dev.zkr.recipes.barrier;

import dev.zkr.client.Children;
import dev.zkr.client.ClientSupport;
import dev.zkr.client.ConnectionState;
import dev.zkr.client.ConnectionStateListener;
import dev.zkr.client.NodeData;
import dev.zkr.client.Op;
import dev.zkr.client.WatchedEvent;
import dev.zkr.client.Watcher;
import dev.zkr.client.WatcherType;
import dev.zkr.client.ZkClient;
import dev.zkr.client.ZkException;
import dev.zkr.client.ZkPaths;
import dev.zkr.recipes.internal.Cleanup;
import dev.zkr.recipes.internal.Retries;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/**
 * The leave protocol of {@link BarrierExit} without a thread, with the decisions of {@link BarrierLook} (so members
 * of either kind leave one barrier together): each look departs (unless we are the lowest, who stays; with the mark
 * check first, then plainly), lists and reads {@code ready} with a watch; then either everyone has left (ready is
 * gone), or we are the last (the last-out multi), or we wait — the lowest for the highest other member, everyone
 * else for the lowest and for ready's deletion — and look again when the watched member goes. Each step is sent
 * from the callback of the one before. Completes (on the executor) with true once every member has left or died;
 * completing it otherwise (cancel, timeout) leaves all the same (our node is deleted, even the lowest's) and
 * removes the watches.
 */
final class BarrierAsyncExit {

    private final BarrierMember member;
    private final ZkClient client;
    private final Executor executor;
    private final CompletableFuture<Boolean> result = new CompletableFuture<>();
    private final ConnectionStateListener onConnection = this::connectionChanged;
    private final Watcher onReady = this::readyEvent;
    // guarded by this
    private long epoch;
    private boolean over; // done() was called: the result completes on the executor
    private boolean stay; // we are the lowest present: keep our node until the others are gone
    private boolean checked = true; // depart only if our node is unmarked; once that failed, plainly
    private boolean readyWatched;
    private String watchedPath;
    private Watcher watcher;

    private BarrierAsyncExit(BarrierMember member, Executor executor) {
        this.member = member;
        this.client = member.client;
        this.executor = executor;
    }

    static CompletableFuture<Boolean> start(BarrierMember member, Executor executor) {
        BarrierAsyncExit x = new BarrierAsyncExit(member, executor);
        x.client.addConnectionStateListener(x.onConnection);
        x.result.whenComplete((v, err) -> x.finished(v != null && v));
        x.look();
        return x.result;
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
        dropWatch();
        long owner = member.session;
        boolean present = owner != 0 && owner == client.sessionId();
        CompletableFuture<?> depart = null;
        if (present && !stay) {
            depart = checked
                    ? client.multiAsync(List.of(Op.check(member.nodePath, 0), Op.delete(member.nodePath, -1)))
                    : client.deleteAsync(member.nodePath, -1);
        }
        CompletableFuture<Children> listing = client.getChildrenAsync(member.path, null);
        readyWatched = true;
        CompletableFuture<NodeData> ready = client.getDataAsync(member.readyPath, onReady);
        CompletableFuture<?> departed = depart;
        ready.handle((v, err) -> null).thenRun(() -> {
            synchronized (this) {
                if (e != epoch || result.isDone()) {
                    return;
                }
                decide(e, present, departed, listing, ready);
            }
        });
    }

    private void decide(long e, boolean wasPresent, CompletableFuture<?> depart, CompletableFuture<Children> listing,
                        CompletableFuture<NodeData> ready) {
        boolean present = wasPresent;
        if (depart != null) {
            Throwable failed = failure(depart);
            if (failed == null) {
                member.session = 0;
                present = false;
            } else if (failed instanceof ZkException.BadVersion || failed instanceof ZkException.NoNode) {
                checked = false; // marked (or our node went): the listing decides
            } else {
                failed(failed);
                return;
            }
        }
        Throwable listFailed = failure(listing);
        if (listFailed != null && !(listFailed instanceof ZkException.NoNode)) {
            failed(listFailed);
            return;
        }
        List<String> members = listFailed != null ? List.of() : BarrierMember.membersOf(listing.join().names());
        Throwable readFailed = failure(ready);
        if (readFailed != null && !(readFailed instanceof ZkException.NoNode)) {
            failed(readFailed);
            return;
        }
        boolean readyThere = readFailed == null;
        if (!readyThere) {
            readyWatched = false; // no watch is left on an absent node
        }
        if (present && !members.contains(member.id)) {
            present = false; // gone with a departure whose answer was lost
            member.session = 0;
        }
        if (!present) {
            stay = false;
            if (!readyThere) {
                done(null); // everyone has left
            } else if (members.isEmpty()) {
                lastOut(e, false);
            } else {
                watch(e, members.get(0)); // the lowest; ready's deletion ends the wait
            }
        } else if (members.size() == 1) {
            lastOut(e, true);
        } else if (members.get(0).equals(member.id)) {
            stay = true;
            watch(e, members.get(members.size() - 1)); // the lowest waits for the highest
        } else {
            stay = false; // a lower member is present: depart plainly
            look();
        }
    }

    /** Waits for the member to go: a data watch; look again when it fires (or at once if it is gone already). */
    private void watch(long e, String target) {
        String path = ZkPaths.join(member.path, target);
        Watcher w = event -> memberEvent(e);
        watcher = w;
        watchedPath = path;
        client.getDataAsync(path, w).whenComplete((d, err) -> {
            synchronized (this) {
                if (err != null && watcher == w) {
                    watcher = null; // no watch was set
                }
                if (e != epoch || result.isDone()) {
                    if (err == null && watcher != w) {
                        forget(path, w);
                    }
                    return;
                }
                if (err != null) {
                    if (ClientSupport.unwrap(err) instanceof ZkException.NoNode) {
                        look(); // it went before our read
                    } else {
                        failed(err);
                    }
                }
            }
        });
    }

    private synchronized void memberEvent(long e) {
        if (e == epoch) {
            watcher = null;
            look();
        }
    }

    /** The last one out: ready and our node together (ready first), or ready alone if we are gone. */
    private void lastOut(long e, boolean present) {
        long owner = member.session;
        List<Op> ops = present ? BarrierLastOut.ops(member) : List.of(Op.delete(member.readyPath, -1));
        client.multiAsync(ops).whenComplete((r, err) -> {
            synchronized (this) {
                if (e != epoch || result.isDone()) {
                    return;
                }
                RuntimeException cause = err == null ? null : ClientSupport.unwrap(err);
                if (cause == null || cause instanceof ZkException.NoNode) {
                    if (present) {
                        member.session = 0;
                        if (cause != null) {
                            Cleanup.deleteAsync(client, member.nodePath, owner); // ready went already
                        }
                    }
                    done(null);
                } else {
                    failed(cause);
                }
            }
        });
    }

    private synchronized void readyEvent(WatchedEvent event) {
        readyWatched = false;
        if (result.isDone() || over) {
            return;
        }
        if (event.type() == WatchedEvent.Type.NODE_DELETED) {
            done(null); // everyone has left
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

    private void failed(Throwable err) {
        RuntimeException cause = ClientSupport.unwrap(err);
        if (cause instanceof ZkException.ConnectionLoss || cause instanceof ZkException.OperationTimeout
                || cause instanceof ZkException.SessionExpired) {
            Retries.whenConnected(client).thenRun(this::look);
        } else {
            done(cause);
        }
    }

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

    private synchronized void dropWatch() {
        if (watcher != null) {
            forget(watchedPath, watcher);
            watcher = null;
        }
    }

    private void forget(String path, Watcher w) {
        try {
            client.removeWatchesAsync(path, w, WatcherType.DATA, true).exceptionally(x -> null);
        } catch (RuntimeException ignored) {
            // the client is closing
        }
    }

    private void finished(boolean left) {
        client.removeConnectionStateListener(onConnection);
        boolean unwatchReady;
        synchronized (this) {
            epoch++;
            dropWatch();
            unwatchReady = readyWatched;
            readyWatched = false;
        }
        if (unwatchReady) {
            forget(member.readyPath, onReady);
        }
        if (!left) {
            long owner = member.session; // gave up (timeout, cancel) or failed: leave all the same
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
