package dev.zkr.testkit.soak;

import java.util.ArrayList;
import java.util.List;

/**
 * Write gaps after kills (pure: times are given in nanoseconds by the caller). A kill's gap is the time from the
 * kill to the first acknowledgement of a write issued after the kill by a client connected to a server other than
 * the killed one. Thread-safe.
 */
final class GapClock {

    /** One kill: when, which server, whether it led, and its gap once known (-1 until then). */
    static final class Kill {
        final long atNanos;
        final int server;
        final boolean leader;
        long gapNanos = -1;

        Kill(long atNanos, int server, boolean leader) {
            this.atNanos = atNanos;
            this.server = server;
            this.leader = leader;
        }
    }

    /** Median, p99 and max of the closed gaps in milliseconds, and how many kills have no gap yet. */
    record Stats(int kills, int leaderKills, int followerKills, int open, long medianMs, long p99Ms, long maxMs) {
    }

    private final List<Kill> kills = new ArrayList<>();
    private final List<Kill> open = new ArrayList<>();

    synchronized void killed(int server, boolean leader, long atNanos) {
        Kill k = new Kill(atNanos, server, leader);
        kills.add(k);
        open.add(k);
    }

    /** A write by a client of {@code server} (-1: a client of every server, not counted) was acknowledged. */
    synchronized void acked(int server, long issuedNanos, long ackedNanos) {
        if (server < 0 || open.isEmpty()) {
            return;
        }
        open.removeIf(k -> {
            if (k.server != server && issuedNanos >= k.atNanos) {
                k.gapNanos = ackedNanos - k.atNanos;
                return true;
            }
            return false;
        });
    }

    synchronized Stats stats() {
        long[] gaps = kills.stream().filter(k -> k.gapNanos >= 0).mapToLong(k -> k.gapNanos / 1_000_000).sorted()
                .toArray();
        int leaders = (int) kills.stream().filter(k -> k.leader).count();
        return new Stats(kills.size(), leaders, kills.size() - leaders, open.size(), percentile(gaps, 50),
                percentile(gaps, 99), gaps.length == 0 ? 0 : gaps[gaps.length - 1]);
    }

    /** Nearest-rank percentile of sorted values (0 if none). */
    static long percentile(long[] sorted, int p) {
        if (sorted.length == 0) {
            return 0;
        }
        int rank = (int) Math.ceil(p / 100.0 * sorted.length);
        return sorted[Math.max(0, rank - 1)];
    }
}
