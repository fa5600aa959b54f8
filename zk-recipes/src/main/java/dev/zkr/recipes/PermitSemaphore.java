package dev.zkr.recipes;

import dev.zkr.client.ZkClient;
import dev.zkr.recipes.internal.Deadline;
import dev.zkr.recipes.internal.OwnedNode;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Executor;

/** A {@link Semaphore} over a {@link SequentialNodeQueue} with the {@link PermitPredicate}. */
final class PermitSemaphore implements Semaphore {

    private static final byte[] NO_DATA = new byte[0];

    private final ZkClient client;
    private final String path;
    private final int permits;
    private final Executor executor;

    PermitSemaphore(ZkClient client, String path, int permits, Executor executor) {
        this.client = client;
        this.path = path;
        this.permits = permits;
        this.executor = executor;
    }

    @Override
    public SemaphoreLease acquire() {
        return acquire(1);
    }

    @Override
    public SemaphoreLease acquire(int n) {
        return acquire(n, Deadline.NONE);
    }

    @Override
    public Optional<SemaphoreLease> tryAcquire(Duration timeout) {
        return tryAcquire(1, timeout);
    }

    @Override
    public Optional<SemaphoreLease> tryAcquire(int n, Duration timeout) {
        return Optional.ofNullable(acquire(n, Deadline.after(timeout)));
    }

    private SemaphoreLease acquire(int n, Deadline deadline) {
        if (n < 1 || n > permits) {
            throw new IllegalArgumentException("permits to acquire must be 1.." + permits + ": " + n);
        }
        SequentialNodeQueue queue = new SequentialNodeQueue(client, path, PermitPredicate.base(n),
                new PermitPredicate(permits));
        while (true) {
            OwnedNode node = queue.acquire(null, NO_DATA, deadline);
            if (node == null) {
                return null;
            }
            Lease lease = Lease.hold(client, queue, node, n, executor);
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
