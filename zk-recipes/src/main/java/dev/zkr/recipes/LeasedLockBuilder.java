package dev.zkr.recipes;

import dev.zkr.client.ZkClient;

import java.time.Duration;
import java.util.concurrent.Executor;

/** Configures a {@link LeasedLock}: {@code recipes.leasedLock(path).lease(Duration.ofSeconds(10)).build()}. */
public final class LeasedLockBuilder {

    /** The shortest lease accepted: shorter ones would expire within a round trip. */
    public static final Duration MIN_LEASE = Duration.ofMillis(50);

    private final ZkClient client;
    private final String path;
    private final Executor executor;
    private Duration lease;

    LeasedLockBuilder(ZkClient client, String path, Executor executor) {
        this.client = client;
        this.path = path;
        this.executor = executor;
    }

    /**
     * How long a holder owns the lock after each renewal (at least {@link #MIN_LEASE}; required). Every participant
     * of one path must use the same lease: a waiter judges the holder by its own.
     */
    public LeasedLockBuilder lease(Duration lease) {
        if (lease == null || lease.compareTo(MIN_LEASE) < 0) {
            throw new IllegalArgumentException("lease must be at least " + MIN_LEASE + ": " + lease);
        }
        this.lease = lease;
        return this;
    }

    /** The lock; {@link IllegalStateException} if no lease was set. */
    public LeasedLock build() {
        if (lease == null) {
            throw new IllegalStateException("no lease set: leasedLock(path).lease(duration)");
        }
        return new LeasedMutex(client, path, lease, executor);
    }
}
