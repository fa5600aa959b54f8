package dev.zkr.recipes.barrier;

import dev.zkr.client.Children;
import dev.zkr.client.ClientSupport;
import dev.zkr.client.ConnectionStateListener;
import dev.zkr.client.CreateMode;
import dev.zkr.client.Created;
import dev.zkr.client.Op;
import dev.zkr.client.Stat;
import dev.zkr.client.WatchedEvent;
import dev.zkr.client.Watcher;
import dev.zkr.client.WatcherType;
import dev.zkr.client.ZkClient;
import dev.zkr.client.ZkException;
import dev.zkr.client.ZkPaths;
import dev.zkr.recipes.DoubleBarrier;
import dev.zkr.recipes.internal.Cleanup;
import dev.zkr.recipes.internal.Deadline;
import dev.zkr.recipes.internal.Retries;
import dev.zkr.recipes.internal.Signal;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The enter protocol of a {@link DoubleBarrier}: one pipelined round trip (create the barrier node, our member
 * node, {@code exists(ready, watch)}, the listing), then either the barrier is open, or we are the last to arrive
 * and open it, or we wait for {@code ready}'s creation.
 */
final class BarrierEntry {

    /** The data the ready node's creator sets on the lowest member's node (its version becomes 1). */
    private static final byte[] LOWEST = "lowest".getBytes(StandardCharsets.UTF_8);

    private final BarrierMember member;
    private final ZkClient client;

    BarrierEntry(BarrierMember member) {
        this.member = member;
        this.client = member.client;
    }

    /** Enters and waits until all parties have entered or the deadline passes (false: our node is removed). */
    boolean enter(Deadline deadline) {
        String readyPath = member.readyPath;
        boolean entered = false;
        boolean createParent = true;
        try {
            while (true) {
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
                    long session = client.sessionId();
                    CompletableFuture<Created> mine = null;
                    if (member.session != session) {
                        if (createParent) {
                            createParent = false;
                            // answered before ours: ignored
                            client.createAsync(member.path, BarrierMember.EMPTY, CreateMode.CONTAINER);
                        }
                        mine = client.createAsync(member.nodePath, BarrierMember.EMPTY, CreateMode.EPHEMERAL);
                    }
                    CompletableFuture<Stat> readyF = client.existsAsync(readyPath, watcher);
                    CompletableFuture<Children> listing = client.getChildrenAsync(member.path, null);
                    CompletableFuture<Boolean> opened = openIfComplete(mine, readyF, listing);
                    CompletableFuture<Created> ours = mine;
                    CompletableFuture<Stat> readyAnswer = readyF;
                    CompletableFuture<Children> listingAnswer = listing;
                    CompletableFuture<Boolean> openAnswer = opened;
                    answered(opened).thenRun(() -> {
                        if (!waiting(ours, readyAnswer, listingAnswer, openAnswer)) {
                            signal.fire(); // the answers need us; otherwise only ready's creation wakes us
                        }
                    });
                    try {
                        signal.await(deadline); // if it timed out, the answers decide (and we wait no more)
                        ClientSupport.await(answered(opened)); // and so the requests before it
                    } catch (ZkException.Interrupted e) {
                        member.removeWhenRead(readyF, readyPath, watcher); // registered later, if still in flight
                        throw e;
                    }
                    if (mine != null) {
                        Boolean listed = created(mine, session, deadline);
                        if (listed == null) {
                            continue; // create again (the watch, if set, is removed below)
                        }
                        if (!listed) { // made with its parents after the pipelined reads: read again, same watch
                            readyF = client.existsAsync(readyPath, watcher);
                            listing = client.getChildrenAsync(member.path, null);
                            opened = CompletableFuture.completedFuture(false);
                        }
                    }
                    Stat ready = Cleanup.watchedRead(client, readyF, readyPath, watcher, WatcherType.DATA);
                    List<String> members = BarrierMember.membersOf(ClientSupport.await(listing).names());
                    if (ready != null) {
                        entered = true; // the barrier is already open (our watch on it is removed below)
                        return true;
                    }
                    if (members.size() >= member.parties) {
                        if (!ClientSupport.await(opened)) {
                            ClientSupport.await(open(members));
                        } // the creation reaches our exists watch before the response: nothing to remove
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
                    // the barrier node went (everyone left an earlier round): make ours again
                    member.session = 0;
                } catch (ZkException.ConnectionLoss | ZkException.OperationTimeout e) {
                    if (!Retries.recover(client, deadline)) {
                        return false;
                    }
                } catch (ZkException.SessionExpired e) {
                    if (!Retries.awaitConnected(client, deadline)) {
                        return false;
                    }
                } finally {
                    client.removeConnectionStateListener(onState);
                    // (fired, yet still registered: seen rarely on zkr when ready is created as the exists is
                    // answered; a local look, no request, in the normal case)
                    if (!fired.get() || client.watchedPaths().contains(readyPath)) {
                        Cleanup.removeWatchQuietly(client, readyPath, watcher, WatcherType.DATA);
                    }
                }
            }
        } finally {
            if (!entered) {
                member.deleteQuietly(member.session);
            }
        }
    }

    /**
     * Settles our pipelined member create: true if our node is there and the reads pipelined after it saw it,
     * false if it had to be made again with its parents (read again), null if it must be created again. A
     * NodeExists may be our own create whose response was lost.
     */
    private Boolean created(CompletableFuture<Created> mine, long session, Deadline deadline) {
        try {
            ClientSupport.await(mine);
            member.session = session;
            return true;
        } catch (ZkException.NodeExists e) {
            Stat stat = client.exists(member.nodePath);
            if (stat != null && stat.ephemeralOwner() == session) {
                member.session = session; // a create whose response was lost
                return true;
            }
            if (stat != null) {
                throw member.inUse();
            }
            return null; // it went meanwhile: create again
        } catch (ZkException.NoNode e) {
            member.ensure(deadline); // an ancestor of the barrier is missing too
            return false;
        }
    }

    /**
     * Once the pipelined enter is answered: if our node is there, the barrier not open yet and the listing shows
     * every party, opens it right away from the client's callback thread (sparing the critical path a wake-up of
     * ours). True if it did; false if there was nothing to open or the look itself failed (the caller sorts it
     * out from the same answers).
     */
    private CompletableFuture<Boolean> openIfComplete(CompletableFuture<Created> mine, CompletableFuture<Stat> ready,
                                                      CompletableFuture<Children> listing) {
        return listing.handle((children, error) -> {
            if (error != null || (mine != null && mine.isCompletedExceptionally())
                    || ready.isCompletedExceptionally() || ready.getNow(null) != null) {
                return CompletableFuture.completedFuture(false);
            }
            List<String> members = BarrierMember.membersOf(children.names());
            if (members.size() < member.parties) {
                return CompletableFuture.completedFuture(false);
            }
            return open(members).thenApply(v -> true);
        }).thenCompose(f -> f);
    }

    /** True if a pipelined enter was answered as expected while not all have arrived: we only wait for ready. */
    private boolean waiting(CompletableFuture<Created> mine, CompletableFuture<Stat> ready,
                            CompletableFuture<Children> listing, CompletableFuture<Boolean> opened) {
        return (mine == null || !mine.isCompletedExceptionally()) && !ready.isCompletedExceptionally()
                && ready.join() == null && !listing.isCompletedExceptionally()
                && BarrierMember.membersOf(listing.join().names()).size() < member.parties
                && !opened.isCompletedExceptionally() && !opened.join();
    }

    /**
     * Opens the barrier: creates {@code ready} and marks the lowest member, in one multi. If the lowest went
     * meanwhile, {@code ready} is created unmarked (leave then falls back to listing first).
     */
    private CompletableFuture<Void> open(List<String> members) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        client.multiAsync(List.of(Op.create(member.readyPath, BarrierMember.EMPTY, CreateMode.PERSISTENT),
                Op.setData(ZkPaths.join(member.path, members.get(0)), LOWEST, -1))).whenComplete((r, error) -> {
                    if (error != null && ClientSupport.unwrap(error) instanceof ZkException.NoNode) {
                        client.createAsync(member.readyPath, BarrierMember.EMPTY, CreateMode.PERSISTENT)
                                .whenComplete((c, e) -> settleOpen(done, e));
                    } else {
                        settleOpen(done, error);
                    }
                });
        return done;
    }

    /** Completes an opening: done unless it failed otherwise than with NodeExists (someone else opened it). */
    private static void settleOpen(CompletableFuture<Void> done, Throwable error) {
        RuntimeException cause = error == null ? null : ClientSupport.unwrap(error);
        if (cause == null || cause instanceof ZkException.NodeExists) {
            done.complete(null);
        } else {
            done.completeExceptionally(cause);
        }
    }

    /**
     * A future completed (normally) once the given one is answered either way: waiting for the last request of a
     * pipeline waits for all of them (one session's requests are answered in order), with one wake-up.
     */
    private static CompletableFuture<Void> answered(CompletableFuture<?> last) {
        return last.handle((v, e) -> null);
    }
}
