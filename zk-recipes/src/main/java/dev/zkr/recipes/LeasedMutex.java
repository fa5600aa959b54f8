package dev.zkr.recipes;

import dev.zkr.client.ClientSupport;
import dev.zkr.client.ZkClient;
import dev.zkr.client.ZkException;
import dev.zkr.recipes.internal.OwnedNode;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A {@link LeasedLock}: the mutex's queue ({@link AsyncAcquire}), with the waiter behind the holder judging its lease
 * ({@link LeaseTakeover}) and each holder's lease a {@link TimedNodeLease}. The blocking forms wait on the
 * asynchronous one.
 */
final class LeasedMutex implements LeasedLock {

    private static final byte[] NO_DATA = new byte[0];

    private final ZkClient client;
    private final SequentialNodeQueue queue;
    private final Duration lease;
    private final Executor executor;
    private final LeaseTakeover takeover;

    LeasedMutex(ZkClient client, String path, Duration lease, Executor executor) {
        this.client = client;
        this.queue = new SequentialNodeQueue(client, path, "lease-", NodePredicate.EXCLUSIVE);
        this.lease = lease;
        this.executor = executor;
        this.takeover = new LeaseTakeover(client, lease, executor);
    }

    @Override
    public TimedLease acquire() {
        return await(acquireAsync(), -1);
    }

    @Override
    public Optional<TimedLease> tryAcquire(Duration timeout) {
        return Optional.ofNullable(await(acquireAsync(), Math.max(0, timeout.toNanos())));
    }

    /** Waits for the future ({@code nanos} < 0: without a bound); gives up (cancels) on timeout or interrupt. */
    private TimedLease await(CompletableFuture<TimedLease> f, long nanos) {
        try {
            return nanos < 0 ? f.get() : f.get(nanos, TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            f.cancel(false);
            Thread.currentThread().interrupt();
            closeIfHeld(f);
            throw new ZkException.Interrupted(path(), "interrupted while acquiring the leased lock");
        } catch (TimeoutException e) {
            if (f.cancel(false) || f.isCompletedExceptionally()) {
                return null;
            }
            return f.join(); // completed just now: ours after all
        } catch (ExecutionException e) {
            throw ClientSupport.unwrap(e);
        } catch (CancellationException e) {
            return null;
        }
    }

    private static void closeIfHeld(CompletableFuture<TimedLease> f) {
        if (f.isDone() && !f.isCompletedExceptionally()) {
            f.join().close();
        }
    }

    @Override
    public CompletableFuture<TimedLease> acquireAsync() {
        CompletableFuture<TimedLease> out = new CompletableFuture<>();
        acquireAsync(out);
        return out;
    }

    /** One acquire into {@code out}; again if the node went before its first renewal (taken over, expiry). */
    private void acquireAsync(CompletableFuture<TimedLease> out) {
        if (out.isDone()) {
            return;
        }
        CompletableFuture<OwnedNode> node = AsyncAcquire.start(client, queue, NO_DATA, executor, takeover);
        out.whenComplete((l, err) -> {
            if (err != null) {
                node.cancel(false); // given up: the acquire deletes its node
            }
        });
        node.whenComplete((held, err) -> {
            if (err != null) {
                out.completeExceptionally(err);
                return;
            }
            TimedNodeLease.start(client, queue, held, lease, executor).whenComplete((l, failed) -> {
                if (failed != null) {
                    queue.releaseAsync(held);
                    out.completeExceptionally(failed);
                } else if (l == null) {
                    acquireAsync(out);
                } else if (!out.complete(l)) {
                    l.close(); // given up meanwhile
                }
            });
        });
    }

    @Override
    public CompletableFuture<Optional<TimedLease>> tryAcquireAsync(Duration timeout) {
        CompletableFuture<TimedLease> acquire = acquireAsync();
        CompletableFuture<Optional<TimedLease>> out = acquire.handle((l, err) -> {
            if (err == null) {
                return Optional.of(l);
            }
            if (err instanceof TimeoutException || err.getCause() instanceof TimeoutException) {
                return Optional.<TimedLease>empty();
            }
            throw err instanceof CompletionException ce ? ce : new CompletionException(err);
        });
        out.whenComplete((v, err) -> {
            if (err != null) {
                acquire.cancel(false);
            }
        });
        CompletableFuture.delayedExecutor(Math.max(0, timeout.toNanos()), TimeUnit.NANOSECONDS, executor)
                .execute(() -> acquire.completeExceptionally(new TimeoutException()));
        return out;
    }

    @Override
    public Duration lease() {
        return lease;
    }

    @Override
    public String path() {
        return queue.path();
    }

    @Override
    public String toString() {
        return "LeasedLock[" + queue.path() + ", lease=" + lease + "]";
    }
}
