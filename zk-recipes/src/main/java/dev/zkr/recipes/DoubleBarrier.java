package dev.zkr.recipes;

import dev.zkr.client.ZkClient;
import dev.zkr.recipes.barrier.Barrier;
import dev.zkr.recipes.internal.Deadline;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The classic double barrier. {@link #enter()} creates this member's ephemeral node and returns once
 * {@code parties} members are present (the last to arrive creates the {@code ready} node, which everyone else
 * watches: a broadcast by design). {@link #leave()} deletes the member node and returns once every member has
 * left or died: only the lowest member watches the highest, the others watch the lowest (no herd).
 *
 * <p>Round trips (requests of one session are answered in order, so pipelined reads see the session's writes):
 * <ul>
 * <li>enter: one pipelined round trip — {@code create(path)} (a container; NodeExists is fine),
 * {@code create(member)}, {@code exists(ready, watch)}, {@code getChildren}. The last to arrive then creates
 * {@code ready} and marks the lowest member it listed (a {@code setData} that bumps that node's version) in one
 * multi; the creation wakes everyone else through their exists watch (no re-check).
 * <li>leave: one pipelined round trip — {@code multi(check(own, version 0), delete(own))}, {@code getChildren},
 * {@code getData(ready, watch)}: nobody has to list before deleting, since only the marked lowest member fails
 * the check and keeps its node. The others then set their watch on the lowest ({@code getData}, one more round
 * trip, off the critical path) and wait for {@code ready} to go. The lowest's listing is answered after the
 * deletes that were in flight before its check; when it shows the lowest alone, it deletes {@code ready} and
 * itself in one multi, which wakes everyone (no re-listing). Otherwise it watches the highest, and each time that
 * one goes it lists again and watches the next highest in the same round trip.
 * </ul>
 * Wake-ups of the caller's thread are what the critical path pays for besides round trips, so: a waiting member
 * is woken once, by {@code ready}'s creation, unless its enter's answers need it; the last to arrive creates
 * {@code ready} from the client's callback thread as soon as its listing is answered; the lowest sends its
 * last-out multi the same way, and when woken by the highest's deletion sends its next look from the watcher.
 *
 * <p>The mark is only a shortcut, the listing decides: a marked member that is not the lowest present deletes its
 * node after all. If the marked member died before the others left, nobody keeps a node: each member deletes its
 * own and watches the lowest present, and the one whose listing comes back empty deletes {@code ready}.
 *
 * <p>A member that dies is removed with its session: it counts as left. The last member to leave deletes the
 * ready node so the path can be reused for the next round (start a round only after the previous one left).
 * Not thread-safe: one barrier object per member.
 */
public final class DoubleBarrier implements AutoCloseable {

    // the protocol's parts are in dev.zkr.recipes.barrier, behind Barrier
    private final Barrier barrier;
    private final Executor executor;
    private final Set<CompletableFuture<?>> pending = ConcurrentHashMap.newKeySet(); // async waits, ended by close
    private volatile boolean closed;

    DoubleBarrier(ZkClient client, String path, int parties, String memberId, Executor executor) {
        this.barrier = new Barrier(client, path, parties, memberId);
        this.executor = executor;
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
        return barrier.enter(deadline);
    }

    /** Leaves and waits until every member has left or died. Honours interrupts. */
    public void leave() {
        leave(Deadline.NONE);
    }

    /**
     * Leaves and waits at most {@code timeout} for the others; false on timeout (this member has left all the
     * same, even the lowest, which otherwise stays until the others are gone).
     */
    public boolean leave(Duration timeout) {
        return leave(Deadline.after(timeout));
    }

    private boolean leave(Deadline deadline) {
        checkOpen();
        return barrier.leave(deadline);
    }

    /**
     * As {@link #enter()} without a thread: the future completes (on the recipes' executor) once all parties have
     * entered; nothing blocks while it waits (each step is sent from the callback of the one before). The same nodes
     * as the blocking form, so members of either kind meet at one barrier; the same failure semantics (it goes on
     * after lost connections and session expiry, fails with {@link IllegalStateException} if another session holds
     * the member id, with {@link dev.zkr.client.ZkException.Closed} if the client is closed). Cancel it, or close
     * the barrier, to give up: this member's node is removed, and the watch.
     */
    public CompletableFuture<Void> enterAsync() {
        checkOpen();
        return untimed(barrier.enterAsync(executor));
    }

    /** As {@link #enter(Duration)} without a thread: false once {@code timeout} passes (this member's node removed). */
    public CompletableFuture<Boolean> enterAsync(Duration timeout) {
        checkOpen();
        return timed(barrier.enterAsync(executor), timeout);
    }

    /**
     * As {@link #leave()} without a thread: completes once every member has left or died. Cancel it (or close the
     * barrier) to stop waiting: this member leaves all the same, as after a timeout.
     */
    public CompletableFuture<Void> leaveAsync() {
        checkOpen();
        return untimed(barrier.leaveAsync(executor));
    }

    /** As {@link #leave(Duration)} without a thread: false once {@code timeout} passes (this member left anyway). */
    public CompletableFuture<Boolean> leaveAsync(Duration timeout) {
        checkOpen();
        return timed(barrier.leaveAsync(executor), timeout);
    }

    /** Registers an asynchronous wait so that close() ends it; a wait started on a closed barrier fails at once. */
    private CompletableFuture<Boolean> track(CompletableFuture<Boolean> wait) {
        pending.add(wait);
        wait.whenComplete((v, err) -> pending.remove(wait));
        if (closed) {
            wait.completeExceptionally(new IllegalStateException("barrier closed"));
        }
        return wait;
    }

    /** The caller's future: giving it up (cancel) gives the wait up. */
    private CompletableFuture<Void> untimed(CompletableFuture<Boolean> wait) {
        track(wait);
        CompletableFuture<Void> out = wait.thenApply(done -> null);
        out.whenComplete((v, err) -> {
            if (err != null) {
                wait.cancel(false);
            }
        });
        return out;
    }

    private CompletableFuture<Boolean> timed(CompletableFuture<Boolean> wait, Duration timeout) {
        track(wait);
        CompletableFuture<Boolean> out = wait.handle((v, err) -> {
            if (err == null) {
                return v;
            }
            if (err instanceof TimeoutException) {
                return false;
            }
            throw err instanceof CompletionException ce ? ce : new CompletionException(err);
        });
        out.whenComplete((v, err) -> {
            if (err != null) {
                wait.cancel(false); // the caller gave up
            }
        });
        CompletableFuture.delayedExecutor(Math.max(0, timeout.toNanos()), TimeUnit.NANOSECONDS, executor)
                .execute(() -> wait.completeExceptionally(new TimeoutException()));
        return out;
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("barrier closed");
        }
    }

    public String path() {
        return barrier.path();
    }

    public String memberId() {
        return barrier.memberId();
    }

    public int parties() {
        return barrier.parties();
    }

    /** Removes this member's node if present. Idempotent. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (CompletableFuture<?> wait : List.copyOf(pending)) {
            wait.completeExceptionally(new IllegalStateException("barrier closed"));
        }
        barrier.close();
    }
}
