package dev.zkr.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * When a window's slowest samples happened: the slowest 1% (the samples at or above the p99), grouped into bursts of
 * samples less than {@link #GAP_NANOS} apart. Few bursts holding most of them say that a few pauses (a collection,
 * another process taking the cores, a slow fsync) set the p99; as many bursts as samples say that the tail is
 * spread over the run, a cost of every sample. Logged beside the row, not a figure of it.
 */
final class TailBursts {

    static final long GAP_NANOS = 20_000_000;

    private final List<long[]> samples = new ArrayList<>(); // {start, latency}

    synchronized void record(long startNanos, long latencyNanos) {
        samples.add(new long[] {startNanos, latencyNanos});
    }

    /** "N samples at or above p99 (X ms) in B bursts, the largest holding L of them"; empty without samples. */
    synchronized String describe() {
        if (samples.isEmpty()) {
            return "";
        }
        long[] latencies = samples.stream().mapToLong(s -> s[1]).sorted().toArray();
        long p99 = latencies[Math.max(1, (int) Math.ceil(0.99 * latencies.length)) - 1];
        long[] slow = samples.stream().filter(s -> s[1] >= p99).mapToLong(s -> s[0]).sorted().toArray();
        int bursts = 0;
        int largest = 0;
        int current = 0;
        for (int i = 0; i < slow.length; i++) {
            if (i == 0 || slow[i] - slow[i - 1] > GAP_NANOS) {
                bursts++;
                current = 0;
            }
            largest = Math.max(largest, ++current);
        }
        return String.format(Locale.ROOT, "%d samples at or above the p99 (%.2f ms) in %d burst(s) (%d ms gaps), "
                        + "the largest holding %d; the slowest: %s ms", slow.length, p99 / 1e6, bursts,
                GAP_NANOS / 1_000_000, largest, Arrays.toString(Arrays.stream(latencies).skip(
                        Math.max(0, latencies.length - 5)).mapToObj(n -> String.format(Locale.ROOT, "%.1f", n / 1e6))
                        .toArray()));
    }
}
