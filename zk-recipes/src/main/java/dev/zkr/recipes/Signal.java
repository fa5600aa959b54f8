package dev.zkr.recipes;

import dev.zkr.client.ZkException;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** A one-shot wake-up: watchers and connection listeners fire it, a blocked caller awaits it. */
final class Signal {

    private final CompletableFuture<Void> fired = new CompletableFuture<>();

    void fire() {
        fired.complete(null);
    }

    boolean isFired() {
        return fired.isDone();
    }

    /**
     * Waits until fired or the deadline passes; true if fired. An interrupt keeps the flag and throws
     * {@link ZkException.Interrupted}.
     */
    boolean await(Deadline deadline) {
        try {
            if (!deadline.isBounded()) {
                fired.get();
            } else {
                fired.get(deadline.remainingNanos(), TimeUnit.NANOSECONDS);
            }
            return true;
        } catch (TimeoutException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ZkException.Interrupted(null, "interrupted while waiting");
        } catch (ExecutionException e) {
            return true;
        }
    }
}
