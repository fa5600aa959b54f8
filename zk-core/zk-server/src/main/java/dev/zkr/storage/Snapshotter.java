package dev.zkr.storage;

import java.util.Objects;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decides when to take a snapshot and takes it on its own thread while appends continue; at most one snapshot
 * runs at a time. After a snapshot is durable, old snapshots beyond {@link Policy#keepSnapshots()} are deleted
 * and log segments no longer needed by the oldest kept snapshot are purged.
 *
 * <p>The server calls {@link #afterApply} after each applied batch (from its apply thread). When the policy
 * fires, {@link Source#capture} is called on that thread with the last applied zxid (so the snapshot covers at
 * least every txn up to it) and the returned body is written on the snapshot thread. Failures are logged, kept in
 * {@link #lastFailure()} and fail the future of {@link #snapshotNow}; the next trigger tries again.
 */
public final class Snapshotter implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(Snapshotter.class);

    /** Captures what a snapshot at {@code zxid} must write. */
    @FunctionalInterface
    public interface Source {
        /**
         * Called on the caller's thread when a snapshot starts; returns the body writer, which runs on the snapshot
         * thread (it may read a concurrently changing state: replay from {@code zxid} repairs a fuzzy snapshot).
         */
        SnapshotWriter capture(long zxid);
    }

    /**
     * When to snapshot and what to keep.
     *
     * @param everyTxns     snapshot after this many applied txns (0 = never by count)
     * @param everyLogBytes snapshot after this many bytes of applied txn payloads (0 = never by size)
     * @param keepSnapshots how many snapshots to keep (>= 1); logs older than the oldest kept one are purged
     */
    public record Policy(long everyTxns, long everyLogBytes, int keepSnapshots) {
        public Policy {
            if (everyTxns < 0 || everyLogBytes < 0) {
                throw new IllegalArgumentException("thresholds must be >= 0");
            }
            if (keepSnapshots < 1) {
                throw new IllegalArgumentException("keepSnapshots must be >= 1: " + keepSnapshots);
            }
        }

        /** Every 100,000 txns or 256 MiB of payloads, keep 3 snapshots. */
        public static Policy defaults() {
            return new Policy(100_000, 256L << 20, 3);
        }
    }

    private final SnapshotStore store;
    private final TxnLog log;
    private final Policy policy;
    private final Source source;
    private final ExecutorService thread;
    private long txnsSince;
    private long bytesSince;
    private CompletableFuture<Long> running;
    private volatile Throwable lastFailure;
    /** Told how long each snapshot took to write (nanoseconds), or null. */
    private volatile java.util.function.LongConsumer onWritten;
    private boolean closed;

    public Snapshotter(SnapshotStore store, TxnLog log, Policy policy, Source source) {
        this.store = Objects.requireNonNull(store, "store");
        this.log = Objects.requireNonNull(log, "log");
        this.policy = Objects.requireNonNull(policy, "policy");
        this.source = Objects.requireNonNull(source, "source");
        this.thread = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "zkr-snapshot");
            t.setDaemon(true);
            return t;
        });
    }

    /**
     * Records that txns up to {@code lastAppliedZxid} were applied ({@code txns} of them, {@code bytes} of
     * payload since the previous call) and starts a snapshot if the policy says so and none is running.
     * Returns true if a snapshot was started.
     */
    public synchronized boolean afterApply(long lastAppliedZxid, int txns, long bytes) {
        txnsSince += txns;
        bytesSince += bytes;
        boolean due = (policy.everyTxns() > 0 && txnsSince >= policy.everyTxns())
                || (policy.everyLogBytes() > 0 && bytesSince >= policy.everyLogBytes());
        if (!due || closed || isRunning()) {
            return false;
        }
        start(lastAppliedZxid);
        return true;
    }

    /**
     * Starts a snapshot at {@code zxid} now (e.g. at shutdown), or returns the running one's future if one is
     * already in progress. The future yields the snapshot's zxid once it is durable and purging is done.
     */
    public synchronized CompletableFuture<Long> snapshotNow(long zxid) {
        if (closed) {
            return CompletableFuture.failedFuture(new StorageException("snapshotter is closed"));
        }
        if (isRunning()) {
            return running;
        }
        return start(zxid);
    }

    private boolean isRunning() {
        return running != null && !running.isDone();
    }

    private CompletableFuture<Long> start(long zxid) {
        txnsSince = 0;
        bytesSince = 0;
        SnapshotWriter body = source.capture(zxid);
        CompletableFuture<Long> f = new CompletableFuture<>();
        running = f;
        thread.execute(() -> {
            try {
                long t0 = System.nanoTime();
                store.write(zxid, body);
                java.util.function.LongConsumer written = onWritten;
                if (written != null) {
                    written.accept(System.nanoTime() - t0);
                }
                OptionalLong oldest = store.retain(policy.keepSnapshots());
                int purged = oldest.isPresent() ? log.purgeUpTo(oldest.getAsLong(), zxid) : 0;
                LOG.info("Snapshot 0x{} written in {} ms; {} log segment(s) purged", Long.toHexString(zxid),
                        (System.nanoTime() - t0) / 1_000_000, purged);
                f.complete(zxid);
            } catch (Throwable t) {
                lastFailure = t;
                LOG.error("Snapshot 0x{} failed: {}", Long.toHexString(zxid), t.toString());
                f.completeExceptionally(t);
            }
        });
        return f;
    }

    /** Tells {@code nanos} how long each snapshot took to write, on the snapshot thread (metrics); null for none. */
    public void onWritten(java.util.function.LongConsumer nanos) {
        this.onWritten = nanos;
    }

    /** The failure of the latest failed snapshot, or null. */
    public Throwable lastFailure() {
        return lastFailure;
    }

    /** True while a snapshot is being written. */
    public synchronized boolean running() {
        return isRunning();
    }

    /** Waits for a running snapshot to finish and stops the thread. Idempotent. */
    @Override
    public void close() {
        synchronized (this) {
            closed = true;
        }
        thread.shutdown();
        try {
            if (!thread.awaitTermination(60, TimeUnit.SECONDS)) {
                LOG.warn("Snapshot still running after 60 s at close");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
