package dev.zkr.chaos.report;

import dev.zkr.chaos.history.Op;
import dev.zkr.chaos.nemesis.FaultWindow;

import java.util.List;

/**
 * Write unavailability of a fault: the longest gap between two consecutive acknowledged writes (their replies) that
 * overlaps the fault's window, in nanoseconds; a gap still open at the end of the history counts up to its end.
 * Pure.
 */
public final class Unavailability {

    private Unavailability() {
    }

    /** {@code writeCompletions} sorted ascending; the history ends at {@code end}. */
    public static long longestGap(long[] writeCompletions, FaultWindow w, long start, long end) {
        long longest = 0;
        long prev = start;
        for (int k = 0; k <= writeCompletions.length; k++) {
            long next = k < writeCompletions.length ? writeCompletions[k] : end;
            if (next >= w.start() && prev <= w.end()) {
                longest = Math.max(longest, next - prev);
            }
            if (prev > w.end()) {
                break;
            }
            prev = next;
        }
        return longest;
    }

    /** The reply times of the acknowledged writes, sorted. */
    public static long[] writeCompletions(List<Op> ops, java.util.Set<String> writes) {
        return ops.stream().filter(o -> o.ok() && writes.contains(o.f())).mapToLong(Op::complete).sorted().toArray();
    }
}
