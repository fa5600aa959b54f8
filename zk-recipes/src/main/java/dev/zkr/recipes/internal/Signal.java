package dev.zkr.recipes.internal;

import dev.zkr.client.ZkException;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** A one-shot wake-up: watchers and connection listeners fire it, a blocked caller awaits it. */
public final class Signal {

    private final CompletableFuture<Void> fired = new CompletableFuture<>();

    public void fire() {
        fired.complete(null);
    }

    public boolean isFired() {
        return fired.isDone();
    }

    /** Completed when fired. */
    public CompletableFuture<Void> future() {
        return fired;
    }

    /**
     * Waits until fired or the deadline passes (or its cancel signal fires); true if fired. An interrupt keeps the
     * flag and throws {@link ZkException.Interrupted}.
     */
    public boolean await(Deadline deadline) {
        Signal cancel = deadline.cancel();
        CompletableFuture<?> wake = cancel == null ? fired : CompletableFuture.anyOf(fired, cancel.fired);
        try {
            if (!deadline.isBounded()) {
                wake.get();
            } else {
                wake.get(deadline.remainingNanos(), TimeUnit.NANOSECONDS);
            }
            return isFired();
        } catch (TimeoutException e) {
            return isFired();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ZkException.Interrupted(null, "interrupted while waiting");
        } catch (ExecutionException e) {
            return true;
        }
    }
}
