package dev.zkr.recipes;

import dev.zkr.client.ZkClient;
import dev.zkr.recipes.internal.Deadline;
import dev.zkr.recipes.internal.OwnedNode;
import dev.zkr.recipes.internal.Retries;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;

/** A {@link DistributedLock} over a {@link SequentialNodeQueue}: the mutex, and each side of the read/write lock. */
final class SequentialLock implements DistributedLock {

    private static final byte[] NO_DATA = new byte[0];

    private final ZkClient client;
    private final SequentialNodeQueue queue;
    private final Executor executor;
    private final Function<List<String>, List<String>> blocking;

    /**
     * A lock whose nodes are named {@code base}; {@code blocking} names, in a sorted listing, the holders that an
     * acquire of this lock would wait for (whom {@link #requestRevocation()} asks).
     */
    SequentialLock(ZkClient client, String path, String base, NodePredicate predicate,
                   Function<List<String>, List<String>> blocking, Executor executor) {
        this.client = client;
        this.queue = new SequentialNodeQueue(client, path, base, predicate);
        this.blocking = blocking;
        this.executor = executor;
    }

    /** The mutex: the first node holds, and blocks everyone. */
    static SequentialLock mutex(ZkClient client, String path, Executor executor) {
        return new SequentialLock(client, path, "lock-", NodePredicate.EXCLUSIVE,
                sorted -> sorted.isEmpty() ? List.of() : List.of(sorted.get(0)), executor);
    }

    @Override
    public LockLease acquire() {
        return acquire(Deadline.NONE, null);
    }

    @Override
    public LockLease acquire(RevocationListener onRevocation) {
        return acquire(Deadline.NONE, Objects.requireNonNull(onRevocation, "onRevocation"));
    }

    @Override
    public Optional<LockLease> tryAcquire(Duration timeout) {
        return Optional.ofNullable(acquire(Deadline.after(timeout), null));
    }

    @Override
    public Optional<LockLease> tryAcquire(Duration timeout, RevocationListener onRevocation) {
        return Optional.ofNullable(acquire(Deadline.after(timeout),
                Objects.requireNonNull(onRevocation, "onRevocation")));
    }

    @Override
    public CompletableFuture<LockLease> acquireAsync() {
        CompletableFuture<LockLease> out = new CompletableFuture<>();
        acquireAsync(out);
        return out;
    }

    /** One asynchronous acquire into {@code out}; again with the new session if the old one went meanwhile. */
    private void acquireAsync(CompletableFuture<LockLease> out) {
        if (out.isDone()) {
            return;
        }
        CompletableFuture<OwnedNode> node = AsyncAcquire.start(client, queue, NO_DATA, executor);
        out.whenComplete((lease, err) -> {
            if (err != null) {
                node.cancel(false); // given up (cancelled, timed out): the acquire deletes its node
            }
        });
        node.whenComplete((held, err) -> {
            if (err != null) {
                out.completeExceptionally(err);
                return;
            }
            Lease lease = Lease.hold(client, queue, held, 1, executor, null);
            if (lease == null) {
                acquireAsync(out); // the session expired between the decision and the lease
            } else if (!out.complete(lease)) {
                lease.close(); // given up meanwhile
            }
        });
    }

    @Override
    public CompletableFuture<Optional<LockLease>> tryAcquireAsync(Duration timeout) {
        CompletableFuture<LockLease> acquire = acquireAsync();
        CompletableFuture<Optional<LockLease>> out = acquire.handle((lease, err) -> {
            if (err == null) {
                return Optional.of(lease);
            }
            if (err instanceof TimeoutException || err.getCause() instanceof TimeoutException) {
                return Optional.<LockLease>empty();
            }
            throw err instanceof CompletionException ce ? ce : new CompletionException(err);
        });
        out.whenComplete((v, err) -> {
            if (err != null) {
                acquire.cancel(false); // the caller gave up
            }
        });
        CompletableFuture.delayedExecutor(Math.max(0, timeout.toNanos()), TimeUnit.NANOSECONDS, executor)
                .execute(() -> acquire.completeExceptionally(new TimeoutException()));
        return out;
    }

    @Override
    public boolean requestRevocation() {
        List<String> holders = blocking.apply(Retries.retrying(client, Deadline.NONE, () -> {
            client.sync(queue.path()); // the holders as of now, not as of a lagging server of an ensemble
            return queue.sortedChildren();
        }));
        return Retries.retrying(client, Deadline.NONE, () -> Revocation.request(client, queue.path(), holders));
    }

    private LockLease acquire(Deadline deadline, RevocationListener onRevocation) {
        while (true) {
            OwnedNode node = queue.acquire(null, NO_DATA, deadline);
            if (node == null) {
                return null;
            }
            Lease lease = Lease.hold(client, queue, node, 1, executor, onRevocation);
            if (lease != null) {
                return lease;
            }
            // the session expired between the check and the lease: queue again with the new session
        }
    }

    @Override
    public String path() {
        return queue.path();
    }

    @Override
    public String toString() {
        return "DistributedLock[" + queue.path() + "]";
    }
}
