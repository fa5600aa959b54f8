package dev.zkr.bench;

import java.time.Duration;

/**
 * Tracks one write at a time until every cache has seen it: the writer calls {@link #expect} before it writes, the
 * caches' listeners call {@link #seen} with the sequence number they read, and {@link #await} answers when the last
 * cache saw it. A cache that reports the same write twice counts once; reports of other writes are ignored.
 */
final class Arrivals {

    private final int caches;
    private final boolean[] arrived;
    private long seq = -1;
    private int missing;
    private long lastNanos;

    Arrivals(int caches) {
        if (caches < 1) {
            throw new IllegalArgumentException("caches must be at least 1: " + caches);
        }
        this.caches = caches;
        this.arrived = new boolean[caches];
    }

    /** Starts waiting for write {@code seq} (non-negative, a new one each time). */
    synchronized void expect(long seq) {
        if (seq < 0 || seq <= this.seq) {
            throw new IllegalArgumentException("write numbers must increase: " + seq + " after " + this.seq);
        }
        this.seq = seq;
        java.util.Arrays.fill(arrived, false);
        missing = caches;
    }

    /** Cache {@code cache} holds write {@code seq} as of {@code nanos}. */
    synchronized void seen(int cache, long seq, long nanos) {
        if (seq != this.seq || arrived[cache]) {
            return;
        }
        arrived[cache] = true;
        if (--missing == 0) {
            lastNanos = nanos;
            notifyAll();
        }
    }

    /** The time the last cache saw write {@code seq}; fails if some cache has not seen it within the timeout. */
    synchronized long await(long seq, Duration timeout) throws InterruptedException {
        if (seq != this.seq) {
            throw new IllegalStateException("write " + seq + " is not the one expected (" + this.seq + ")");
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        while (missing > 0) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                throw new IllegalStateException(missing + " of " + caches + " caches did not see write " + seq
                        + " within " + timeout);
            }
            wait(Math.max(1, left / 1_000_000));
        }
        return lastNanos;
    }
}
