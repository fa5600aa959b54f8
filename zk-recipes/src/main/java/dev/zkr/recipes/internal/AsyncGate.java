package dev.zkr.recipes.internal;

import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * At most {@code permits} asynchronous calls in flight; the others wait in a queue (no thread waits) and are sent as
 * earlier ones complete. For requests whose answers are large (listings of a queue with thousands of waiters): sent
 * all at once they would keep the server busy past the client's ping deadline.
 */
public final class AsyncGate {

    private final int permits;
    private final ArrayDeque<Runnable> waiting = new ArrayDeque<>();
    private int inFlight; // guarded by this

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
        boolean now;
        synchronized (this) {
            now = inFlight < permits;
            if (now) {
                inFlight++;
            } else {
                waiting.add(send);
            }
        }
        if (now) {
            send.run();
        }
        return out;
    }

    private void release() {
        Runnable next;
        synchronized (this) {
            next = waiting.poll();
            if (next == null) {
                inFlight--;
            }
        }
        if (next != null) {
            next.run(); // the permit passes on
        }
    }
}
