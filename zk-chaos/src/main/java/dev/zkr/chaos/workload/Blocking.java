package dev.zkr.chaos.workload;

import dev.zkr.chaos.history.Op;
import dev.zkr.client.ZkException;

import java.util.concurrent.Callable;
import java.util.function.Function;

/**
 * Records a blocking recipe call (a queue offer, a counter increment, a Curator call) in the history. A recipe may
 * have sent several requests before it throws, so any exception makes the call indeterminate ({@code INFO}), except
 * {@link NotApplied}, which the caller throws when the recipe itself said the call had no effect ({@code FAIL}).
 * The call runs on the worker's thread: its latency is recorded as it was (recipes wait for the connection).
 */
final class Blocking {

    /** The recipe reported that the call had no effect (for example Curator's {@code succeeded() == false}). */
    static final class NotApplied extends Exception {
        NotApplied(String why) {
            super(why, null, false, false);
        }
    }

    private Blocking() {
    }

    static <T> Worker.Result<T> call(Worker w, String f, String key, String arg, Callable<T> call,
                                     Function<T, String> describe) {
        long invoke = w.history().now();
        T value = null;
        Op.Status status;
        String result = null;
        String error = null;
        try {
            value = call.call();
            status = Op.Status.OK;
            result = describe.apply(value);
        } catch (NotApplied e) {
            status = Op.Status.FAIL;
            error = e.getMessage();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            status = Op.Status.INFO;
            error = "Interrupted";
        } catch (Exception e) {
            status = Op.Status.INFO;
            error = e instanceof ZkException ? e.getClass().getSimpleName()
                    : e.getClass().getSimpleName() + ": " + e.getMessage();
        }
        Op op = new Op(w.index(), f, key, arg, invoke, w.history().now(), status, result, error);
        w.history().add(op);
        return new Worker.Result<>(op, value);
    }
}
