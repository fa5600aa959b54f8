package dev.zkr.recipes.barrier;

import dev.zkr.client.ZkException;
import dev.zkr.recipes.DoubleBarrier;
import dev.zkr.recipes.internal.Deadline;
import dev.zkr.recipes.internal.Retries;

import java.util.List;

/**
 * The leave protocol of a {@link DoubleBarrier}: looks ({@link BarrierLook}) until {@code ready} is gone, sets
 * the watch on {@code ready} that tells everyone has left, and leaves anyway on timeout or interrupt.
 */
final class BarrierExit {

    private final BarrierMember member;

    BarrierExit(BarrierMember member) {
        this.member = member;
    }

    /** Leaves and waits until every member has left or died or the deadline passes (false; we left all the same). */
    boolean leave(Deadline deadline) {
        BarrierReadyWatch onReady = new BarrierReadyWatch(member); // fires when ready goes: everyone has left
        boolean out = false;
        try {
            out = leave(onReady, deadline);
            return out;
        } finally {
            onReady.remove();
            if (!out) {
                long owner = member.session; // timed out or interrupted: leave anyway (the lowest too)
                member.session = 0;
                if (owner != 0) {
                    member.deleteQuietly(owner);
                }
            }
        }
    }

    private boolean leave(BarrierReadyWatch onReady, Deadline deadline) {
        BarrierDeparture departure = new BarrierDeparture();
        List<String> previous = List.of(); // the last listing of this leave: whom to watch, guessed from it
        BarrierLook successor = null; // a look the last one sent from the callback thread, not yet run
        try {
            while (true) {
                if (onReady.gone.get()) {
                    if (successor != null) {
                        successor.close();
                    }
                    return true;
                }
                BarrierLook look = successor != null ? successor
                        : new BarrierLook(member, onReady, departure, previous);
                successor = null;
                try {
                    Boolean done = look.run(deadline);
                    if (done != null) {
                        return done;
                    }
                    previous = look.next();
                    successor = look.takeSuccessor();
                } catch (ZkException.ConnectionLoss | ZkException.OperationTimeout e) {
                    if (!Retries.recover(member.client, deadline)) {
                        return false;
                    }
                    previous = List.of();
                } catch (ZkException.SessionExpired e) {
                    if (!Retries.awaitConnected(member.client, deadline)) {
                        return false;
                    }
                } finally {
                    look.close();
                }
            }
        } catch (ZkException.ConnectionLoss e) {
            return false; // the deadline passed while disconnected
        }
    }
}
