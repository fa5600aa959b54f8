package dev.zkr.recipes;

import dev.zkr.client.ZkClient;
import dev.zkr.recipes.internal.Deadline;
import dev.zkr.recipes.internal.OwnedNode;
import dev.zkr.recipes.internal.Retries;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/** A {@link Semaphore} over a {@link SequentialNodeQueue} with the {@link PermitPredicate}. */
final class PermitSemaphore implements Semaphore {

    private static final byte[] NO_DATA = new byte[0];

    private final ZkClient client;
    private final String path;
    private final int permits;
    private final Executor executor;
    private final PermitPredicate predicate;

    PermitSemaphore(ZkClient client, String path, int permits, Executor executor) {
        this.client = client;
        this.path = path;
        this.permits = permits;
        this.executor = executor;
        this.predicate = new PermitPredicate(permits);
    }

    @Override
    public SemaphoreLease acquire() {
        return acquire(1);
    }

    @Override
    public SemaphoreLease acquire(int n) {
        return acquire(n, Deadline.NONE, null);
    }

    @Override
    public SemaphoreLease acquire(int n, RevocationListener onRevocation) {
        return acquire(n, Deadline.NONE, Objects.requireNonNull(onRevocation, "onRevocation"));
    }

    @Override
    public boolean requestRevocation() {
        SequentialNodeQueue queue = new SequentialNodeQueue(client, path, PermitPredicate.BASE, predicate);
        List<String> sorted = Retries.retrying(client, Deadline.NONE, () -> {
            client.sync(path); // the holders as of now, not as of a lagging server of an ensemble
            return queue.sortedChildren();
        });
        List<String> holders = new ArrayList<>();
        for (int i = 0; i < sorted.size() && predicate.decide(sorted, i).acquired(); i++) {
            holders.add(sorted.get(i));
        }
        return Retries.retrying(client, Deadline.NONE, () -> Revocation.request(client, path, holders));
    }

    @Override
    public Optional<SemaphoreLease> tryAcquire(Duration timeout) {
        return tryAcquire(1, timeout);
    }

    @Override
    public Optional<SemaphoreLease> tryAcquire(int n, Duration timeout) {
        return Optional.ofNullable(acquire(n, Deadline.after(timeout), null));
    }

    @Override
    public CompletableFuture<SemaphoreLease> acquireAsync(int n) {
        if (n < 1 || n > permits) {
            throw new IllegalArgumentException("permits to acquire must be 1.." + permits + ": " + n);
        }
        CompletableFuture<SemaphoreLease> out = new CompletableFuture<>();
        acquireAsync(n, out);
        return out;
    }

    /** One asynchronous acquire into {@code out}; again with the new session if the old one went meanwhile. */
    private void acquireAsync(int n, CompletableFuture<SemaphoreLease> out) {
        if (out.isDone()) {
            return;
        }
        SequentialNodeQueue queue = new SequentialNodeQueue(client, path, PermitPredicate.base(n), predicate);
        CompletableFuture<OwnedNode> node = AsyncAcquire.start(client, queue, NO_DATA, executor);
        out.whenComplete((lease, err) -> {
            if (err != null) {
                node.cancel(false);
            }
        });
        node.whenComplete((held, err) -> {
            if (err != null) {
                out.completeExceptionally(err);
                return;
            }
            Lease lease = Lease.hold(client, queue, held, n, executor, null);
            if (lease == null) {
                acquireAsync(n, out);
            } else if (!out.complete(lease)) {
                lease.close();
            }
        });
    }

    private SemaphoreLease acquire(int n, Deadline deadline, RevocationListener onRevocation) {
        if (n < 1 || n > permits) {
            throw new IllegalArgumentException("permits to acquire must be 1.." + permits + ": " + n);
        }
        SequentialNodeQueue queue = new SequentialNodeQueue(client, path, PermitPredicate.base(n), predicate);
        while (true) {
            OwnedNode node = queue.acquire(null, NO_DATA, deadline);
            if (node == null) {
                return null;
            }
            Lease lease = Lease.hold(client, queue, node, n, executor, onRevocation);
            if (lease != null) {
                return lease;
            }
            // the session expired between the check and the lease: queue again with the new session
        }
    }

    @Override
    public int permits() {
        return permits;
    }

    @Override
    public String path() {
        return path;
    }

    @Override
    public String toString() {
        return "Semaphore[" + path + ", permits=" + permits + "]";
    }
}
