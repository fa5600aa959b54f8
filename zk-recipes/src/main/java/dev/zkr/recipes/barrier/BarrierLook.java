package dev.zkr.recipes.barrier;

import dev.zkr.client.Children;
import dev.zkr.client.ClientSupport;
import dev.zkr.client.ConnectionStateListener;
import dev.zkr.client.NodeData;
import dev.zkr.client.Op;
import dev.zkr.client.OpResult;
import dev.zkr.client.ZkClient;
import dev.zkr.client.ZkException;
import dev.zkr.recipes.internal.Deadline;
import dev.zkr.recipes.internal.Signal;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * One look of a leave, one pipelined round trip sent when the look is made: our departure (if due), the
 * listing, the watched read of {@code ready} and, when the last listing tells whom we will wait for, the
 * watched read of that member. The answers are worked out on the client's callback thread, which also sets
 * the watch on the member to wait for (one more round trip if it could not be guessed) and sends the last-out
 * multi: the caller's thread only wakes when there is something for it to do or the wait is over. A lowest
 * member woken by the highest's deletion makes its next look at once from the watcher, likewise.
 */
final class BarrierLook {

    /** What a look's answers call for. */
    private enum Next { DONE, LAST_OUT, LOOK_AGAIN, WAIT }

    /**
     * A look's answers, worked out on the client's callback thread as soon as the last one is in: what to do
     * next, whether we are still present, the member we wait for (WAIT) and the last-out multi if already sent.
     */
    private record Outcome(Next next, boolean present, List<String> members, String target,
                           CompletableFuture<List<OpResult>> sent) {
    }

    private final BarrierMember member;
    private final ZkClient client;
    private final BarrierReadyWatch onReady;
    private final BarrierDeparture departure;
    private final Signal signal = new Signal();
    private final ConnectionStateListener onState = (c, s) -> signal.fire();
    private final boolean wasPresent;
    private final CompletableFuture<?> depart;
    private final CompletableFuture<Children> listing;
    private final CompletableFuture<NodeData> ready;
    private final CompletableFuture<Outcome> outcome;
    /** The watched read of the member we wait for (its watch is ours to clean up), if any; guarded by this. */
    private BarrierMemberWatch watch;
    private boolean keepWatch;
    /** The members to guess from in the next look. */
    private volatile List<String> next;
    /** The next look, made when the highest we (the lowest) wait for goes; guarded by this look. */
    private BarrierLook successor;
    private boolean closed;
    private boolean handedOver;

    /** Sends the look's requests; {@code previous}: the last listing of this leave, to guess whom to watch. */
    BarrierLook(BarrierMember member, BarrierReadyWatch onReady, BarrierDeparture departure, List<String> previous) {
        this.member = member;
        this.client = member.client;
        this.onReady = onReady;
        this.departure = departure;
        this.next = previous;
        onReady.signal = signal;
        client.addConnectionStateListener(onState);
        long owner = member.session;
        boolean present = owner != 0 && owner == client.sessionId();
        wasPresent = present;
        boolean stay = departure.stay;
        if (present && !stay) {
            depart = departure.checked
                    ? client.multiAsync(List.of(Op.check(member.nodePath, 0), Op.delete(member.nodePath, -1)))
                    : client.deleteAsync(member.nodePath, -1);
        } else {
            depart = null;
        }
        listing = client.getChildrenAsync(member.path, null);
        ready = client.getDataAsync(member.readyPath, onReady);
        onReady.read = ready;
        String guess = present && stay ? highestOther(previous)
                : !present || !departure.checked ? lowestOther(previous) : null;
        CompletableFuture<?> last = ready;
        if (guess != null) {
            synchronized (this) {
                watch = new BarrierMemberWatch(member, guess, signal);
                last = watch.read;
            }
        }
        outcome = last.handle((v, e) -> settle());
    }

    /** On the callback thread, once every answer is in: works them out; wakes the caller unless it waits. */
    private synchronized Outcome settle() {
        Outcome o;
        try {
            o = decide();
        } catch (RuntimeException e) {
            signal.fire();
            throw e;
        }
        if (o.next() != Next.WAIT) {
            signal.fire();
        }
        return o;
    }

    private Outcome decide() {
        boolean present = wasPresent;
        if (depart != null) {
            Throwable failed = failure(depart);
            if (failed == null) {
                member.session = 0;
                present = false;
            } else if (failed instanceof ZkException.BadVersion || failed instanceof ZkException.NoNode) {
                departure.checked = false; // marked (or our node went): the listing decides
            } else {
                throw (RuntimeException) failed;
            }
        }
        List<String> members = BarrierMember.members(listing);
        next = members;
        boolean readyThere = found(ready);
        if (readyThere) {
            onReady.set = true;
        }
        if (present && !members.contains(member.id)) {
            present = false; // gone with a departure whose response was lost
            member.session = 0;
        }
        if (onReady.gone.get()) {
            keepWatch = !present; // the lowest we watch went before ready, or with it: its watch fires too
            return new Outcome(Next.DONE, present, members, null, null);
        }
        String target;
        if (!present) {
            departure.stay = false;
            if (!readyThere) {
                return new Outcome(Next.DONE, false, members, null, null); // everyone has left
            }
            if (members.isEmpty()) {
                return new Outcome(Next.LAST_OUT, false, members, null, null);
            }
            target = members.get(0);
        } else if (members.size() == 1) {
            return new Outcome(Next.LAST_OUT, true, members, null, member.session == client.sessionId()
                    ? client.multiAsync(BarrierLastOut.ops(member)) : null);
        } else if (members.get(0).equals(member.id)) {
            departure.stay = true;
            target = members.get(members.size() - 1);
        } else {
            departure.stay = false; // a lower member is present: depart plainly
            return new Outcome(Next.LOOK_AGAIN, true, members, null, null);
        }
        if (closed) {
            return new Outcome(Next.LOOK_AGAIN, present, members, null, null); // abandoned: arm nothing
        }
        if (watch == null || !watch.member.equals(target) || watch.read.isCompletedExceptionally()) {
            unwatch(); // no guess, or a wrong one (rare: a member we did not list came in)
            watch = new BarrierMemberWatch(member, target, signal); // if it finds nothing (or fails) it wakes us
            watch.read.whenComplete((d, e) -> {
                if (e != null) {
                    signal.fire();
                }
            });
        }
        if (present) {
            watch.onDeletion = this::lookAgainAtOnce;
        }
        return new Outcome(Next.WAIT, present, members, target, null);
    }

    /** True or false when the leave is done (false: timed out); null to look again. */
    Boolean run(Deadline deadline) {
        boolean woke = signal.await(deadline);
        Outcome o = ClientSupport.await(outcome); // the answers are in (if we timed out, they still decide)
        switch (o.next()) {
            case DONE:
                return true;
            case LAST_OUT:
                BarrierLastOut.leave(member, o.present(), deadline, o.sent());
                return true;
            case LOOK_AGAIN:
                return null;
            default:
                break;
        }
        if (!woke) {
            return false;
        }
        BarrierMemberWatch target;
        synchronized (this) {
            target = watch;
        }
        if (onReady.gone.get()) {
            synchronized (this) {
                keepWatch = !o.present();
            }
            return true;
        }
        if (target.read.isCompletedExceptionally()) {
            return null; // it went before our read: look again
        }
        if (target.fired.get()) {
            List<String> rest = new ArrayList<>(o.members());
            rest.remove(o.target());
            next = rest;
        }
        return null; // the target left or died, or the connection changed: look again
    }

    List<String> next() {
        return next;
    }

    /** On the callback thread, when the highest we wait for (as the lowest) is deleted: the next look. */
    private synchronized void lookAgainAtOnce(String gone) {
        if (closed) {
            return;
        }
        List<String> rest = new ArrayList<>(next);
        rest.remove(gone);
        next = rest;
        successor = new BarrierLook(member, onReady, departure, rest);
    }

    /** The look made at once when our target went, now the caller's to run and close; null if none. */
    synchronized BarrierLook takeSuccessor() {
        handedOver = true;
        return successor;
    }

    private void unwatch() {
        if (watch != null) {
            watch.drop();
            watch = null;
        }
    }

    /**
     * Removes the state listener and a watch on the target that has not fired (unless it surely will), and a
     * successor made just as the look was abandoned.
     */
    void close() {
        client.removeConnectionStateListener(onState);
        BarrierLook orphan;
        synchronized (this) {
            closed = true;
            if (!keepWatch) {
                unwatch();
            }
            orphan = handedOver ? null : successor;
        }
        if (orphan != null) {
            orphan.close();
        }
    }

    private String lowestOther(List<String> members) {
        for (String m : members) {
            if (!m.equals(member.id)) {
                return m;
            }
        }
        return null;
    }

    private String highestOther(List<String> members) {
        for (int i = members.size() - 1; i >= 0; i--) {
            if (!members.get(i).equals(member.id)) {
                return members.get(i);
            }
        }
        return null;
    }

    private static Throwable failure(CompletableFuture<?> f) {
        try {
            f.join();
            return null;
        } catch (RuntimeException e) {
            return ClientSupport.unwrap(e);
        }
    }

    /** True if the read found the node (a watch is then set), false on NoNode. */
    private static boolean found(CompletableFuture<NodeData> read) {
        try {
            ClientSupport.await(read);
            return true;
        } catch (ZkException.NoNode e) {
            return false;
        }
    }
}
