package dev.zkr.recipes;

import dev.zkr.client.ZkClient;
import dev.zkr.recipes.internal.Deadline;
import dev.zkr.recipes.internal.OwnedNode;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Executor;

/** A {@link DistributedLock} over a {@link SequentialNodeQueue}: the mutex, and each side of the read/write lock. */
final class SequentialLock implements DistributedLock {

    private static final byte[] NO_DATA = new byte[0];

    private final ZkClient client;
    private final SequentialNodeQueue queue;
    private final Executor executor;

    SequentialLock(ZkClient client, String path, String base, NodePredicate predicate, Executor executor) {
        this.client = client;
        this.queue = new SequentialNodeQueue(client, path, base, predicate);
        this.executor = executor;
    }

    @Override
    public LockLease acquire() {
        return acquire(Deadline.NONE);
    }

    @Override
    public Optional<LockLease> tryAcquire(Duration timeout) {
        return Optional.ofNullable(acquire(Deadline.after(timeout)));
    }

    private LockLease acquire(Deadline deadline) {
        while (true) {
            OwnedNode node = queue.acquire(null, NO_DATA, deadline);
            if (node == null) {
                return null;
            }
            Lease lease = Lease.hold(client, queue, node, executor);
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
