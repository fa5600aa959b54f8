package dev.zkr.chaos.recipes;

import java.util.List;
import java.util.Locale;

/**
 * One holder's claim as the history shows it: a lock lease from its acquire's completion to its release's
 * invocation, or one term of leadership of a latch instance from its elected callback to its revoked callback or
 * the resign, whichever came first. {@code valid} are the parts of [start, end) in which the holder had reason to
 * believe it held: its lease (or leadership) not reported uncertain or lost, its client's connection not suspended,
 * and its session not lost or replaced since the claim began. Times are history nanoseconds.
 *
 * @param id       the hold's id ({@code <worker>-<n>}; a latch term adds {@code #<term>})
 * @param instance the lock acquire or latch instance the hold belongs to (equal tokens are allowed only within one)
 * @param role     {@code mutex}, {@code read}, {@code write} or {@code leader}
 * @param token    the fencing token, -1 when unknown
 * @param invoke   when the acquire was invoked (a latch term: when it was elected)
 */
record Hold(String id, String instance, int process, String role, long token, long invoke, long start, long end,
            List<Interval> valid) {

    /** [from, to) in history nanoseconds. */
    record Interval(long from, long to) {
        Interval {
            if (to < from) {
                throw new IllegalArgumentException("interval ends before it starts");
            }
        }
    }

    /** Whether the validity was ever interrupted (uncertain, suspended, lost) during the claim. */
    boolean interrupted() {
        return !(valid.size() == 1 && valid.get(0).from() == start && valid.get(0).to() == end);
    }

    String describe() {
        return String.format(Locale.ROOT, "worker %d %s %s (token %d, %.3f s .. %.3f s)", process, role, id, token,
                start / 1e9, end / 1e9);
    }
}
