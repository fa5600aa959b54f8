package dev.zkr.bench;

import java.util.Arrays;

/** Collects latency samples in nanoseconds (thread-safe) and answers nearest-rank percentiles. */
final class Latencies {

    private long[] samples = new long[1024];
    private int size;

    synchronized void record(long nanos) {
        if (nanos < 0) {
            throw new IllegalArgumentException("negative latency: " + nanos);
        }
        if (size == samples.length) {
            samples = Arrays.copyOf(samples, size * 2);
        }
        samples[size++] = nanos;
    }

    synchronized int count() {
        return size;
    }

    /** The nearest-rank percentile ({@code 0 < p <= 100}) in nanoseconds; fails when there are no samples. */
    synchronized long percentile(double p) {
        if (!(p > 0 && p <= 100)) {
            throw new IllegalArgumentException("percentile must be in (0, 100]: " + p);
        }
        if (size == 0) {
            throw new IllegalStateException("no samples");
        }
        long[] sorted = Arrays.copyOf(samples, size);
        Arrays.sort(sorted);
        int rank = (int) Math.ceil(p / 100.0 * size);
        return sorted[Math.max(rank, 1) - 1];
    }

    /** The percentile in milliseconds. */
    double percentileMillis(double p) {
        return percentile(p) / 1_000_000.0;
    }
}
