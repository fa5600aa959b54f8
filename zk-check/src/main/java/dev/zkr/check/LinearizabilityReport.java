package dev.zkr.check;

import java.util.List;
import java.util.stream.Collectors;

/**
 * The linearizability verdict for a whole history: a violation if any key has one, else unknown if any key ran out
 * of budget, else ok.
 *
 * @param partitions one result per key, in key order
 */
public record LinearizabilityReport(List<PartitionResult> partitions) {

    public LinearizabilityReport {
        partitions = List.copyOf(partitions);
    }

    /** The verdict over all keys. */
    public Verdict verdict() {
        if (partitions.stream().anyMatch(p -> p.verdict() == Verdict.VIOLATION)) {
            return Verdict.VIOLATION;
        }
        if (partitions.stream().anyMatch(p -> p.verdict() == Verdict.UNKNOWN)) {
            return Verdict.UNKNOWN;
        }
        return Verdict.OK;
    }

    /** The keys that are not ok. */
    public List<PartitionResult> failures() {
        return partitions.stream().filter(p -> p.verdict() != Verdict.OK).toList();
    }

    /** Search steps over all keys. */
    public long steps() {
        return partitions.stream().mapToLong(PartitionResult::steps).sum();
    }

    /** The verdict, then each key that is not ok with its explanation. */
    public String describe() {
        int ops = partitions.stream().mapToInt(PartitionResult::operations).sum();
        String head = verdict() + ": " + partitions.size() + " keys, " + ops + " ops, " + steps() + " steps";
        return failures().stream().map(PartitionResult::describe).collect(Collectors.joining("\n", head + "\n", ""));
    }
}
