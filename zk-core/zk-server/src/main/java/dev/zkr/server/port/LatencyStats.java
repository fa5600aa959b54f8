package dev.zkr.server.port;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * The server's request latency since it started, as ZooKeeper's four-letter words report it: min, average and max
 * in milliseconds over every request answered on the client port (from the socket read that brought it to the write
 * of its reply). Always kept, whether or not the server keeps metrics; updated by the event loops, lock-free.
 */
final class LatencyStats {

    private final LongAdder count = new LongAdder();
    private final LongAdder totalNanos = new LongAdder();
    private final AtomicLong minNanos = new AtomicLong(Long.MAX_VALUE);
    private final AtomicLong maxNanos = new AtomicLong(0);

    /** A request was answered {@code nanos} after it was read. */
    void record(long nanos) {
        long n = Math.max(0, nanos);
        count.increment();
        totalNanos.add(n);
        long min;
        while (n < (min = minNanos.get()) && !minNanos.compareAndSet(min, n)) {
            Thread.onSpinWait();
        }
        long max;
        while (n > (max = maxNanos.get()) && !maxNanos.compareAndSet(max, n)) {
            Thread.onSpinWait();
        }
    }

    /** ZooKeeper's {@code min/avg/max}: whole milliseconds, the average with its fraction; 0/0.0/0 before any. */
    Snapshot snapshot() {
        long n = count.sum();
        if (n == 0) {
            return new Snapshot(0, 0.0, 0);
        }
        return new Snapshot(minNanos.get() / 1_000_000, totalNanos.sum() / 1e6 / n, maxNanos.get() / 1_000_000);
    }

    /** Latencies in milliseconds. */
    record Snapshot(long min, double avg, long max) {
    }
}
