package dev.zkr.recipes.internal;

import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * At most {@code permits} asynchronous calls in flight; the others wait in a queue (no thread waits) and are sent as
 * earlier ones complete. For requests whose answers are large (listings of a queue with thousands of waiters): sent
 * all at once they would keep the server busy past the client's ping deadline.
 *
 * <p>A call that completes at once (e.g. fails because the client is closed) passes its permit on without recursion:
 * one caller drains the queue in a loop, so thousands of queued calls failing at once cannot overflow the stack.
 */
public final class AsyncGate {

    private final int permits;
    private final ArrayDeque<Runnable> waiting = new ArrayDeque<>();
    private int inFlight; // guarded by this
    private boolean draining; // guarded by this: a caller is sending queued calls

    public AsyncGate(int permits) {
        this.permits = permits;
    }

    /** Sends {@code call} now if a permit is free, else once one is; the result completes with the call's. */
    public <T> CompletableFuture<T> submit(Supplier<CompletableFuture<T>> call) {
        CompletableFuture<T> out = new CompletableFuture<>();
        Runnable send = () -> {
            CompletableFuture<T> sent;
            try {
                sent = call.get();
            } catch (RuntimeException e) {
                sent = CompletableFuture.failedFuture(e);
            }
            sent.whenComplete((v, err) -> {
                release();
                if (err != null) {
                    out.completeExceptionally(err);
                } else {
                    out.complete(v);
                }
            });
        };
        synchronized (this) {
            waiting.add(send);
        }
        pump();
        return out;
    }

    private void release() {
        synchronized (this) {
            inFlight--;
        }
        pump();
    }

    /**
     * Sends queued calls while permits are free. One caller pumps at a time; another (or the same thread, re-entered
     * by a call that completed at once) returns at once and the pumping loop sees its change at its next look, which
     * is made under the same lock as giving up the pumping, so no freed permit is missed.
     */
    private void pump() {
        synchronized (this) {
            if (draining) {
                return;
            }
            draining = true;
        }
        while (true) {
            Runnable next;
            synchronized (this) {
                if (inFlight >= permits || waiting.isEmpty()) {
                    draining = false;
                    return;
                }
                inFlight++;
                next = waiting.poll();
            }
            next.run();
        }
    }
}
