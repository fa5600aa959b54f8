package dev.zkr.recipes.barrier;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

import dev.zkr.client.ZkClient;
import dev.zkr.recipes.internal.Deadline;

/**
 * One member of a double barrier: the engine behind {@link dev.zkr.recipes.DoubleBarrier}, which holds the protocol
 * (see there). Internal, not API: the public class is {@code DoubleBarrier}.
 *
 * <p>Where things live: {@link BarrierEntry} (enter), {@link BarrierExit} with {@link BarrierLook} (leave, one
 * pipelined look at a time; the watches in {@link BarrierReadyWatch} and {@link BarrierMemberWatch}) and
 * {@link BarrierLastOut}, over {@link BarrierMember} (our node and the session that owns it); the same protocol
 * without a thread in {@link BarrierAsyncEntry} and {@link BarrierAsyncExit}.
 */
public final class Barrier {

    /** The barrier's child that exists while it is open; no member may take this id. */
    public static final String READY = BarrierMember.READY;

    private final BarrierMember member;
    private final BarrierEntry entry;
    private final BarrierExit exit;

    public Barrier(ZkClient client, String path, int parties, String memberId) {
        this.member = new BarrierMember(client, path, parties, memberId);
        this.entry = new BarrierEntry(member);
        this.exit = new BarrierExit(member);
    }

    /** Enters and waits until all parties have entered, or the deadline passes (false; our node is removed). */
    public boolean enter(Deadline deadline) {
        return entry.enter(deadline);
    }

    /** Leaves and waits until every member has left or died, or the deadline passes (false; left all the same). */
    public boolean leave(Deadline deadline) {
        return exit.leave(deadline);
    }

    /**
     * As {@link #enter(Deadline)} without a thread: completes with true (on the executor) once all parties have
     * entered; completing it otherwise (cancel, a timeout) removes our node.
     */
    public CompletableFuture<Boolean> enterAsync(Executor executor) {
        return BarrierAsyncEntry.start(member, executor);
    }

    /**
     * As {@link #leave(Deadline)} without a thread: completes with true (on the executor) once every member has left
     * or died; completing it otherwise (cancel, a timeout) leaves all the same.
     */
    public CompletableFuture<Boolean> leaveAsync(Executor executor) {
        return BarrierAsyncExit.start(member, executor);
    }

    public String path() {
        return member.path;
    }

    public String memberId() {
        return member.id;
    }

    public int parties() {
        return member.parties;
    }

    /** Removes our member node if present. */
    public void close() {
        member.deleteQuietly(member.session);
    }
}
