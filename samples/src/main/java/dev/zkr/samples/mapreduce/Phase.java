package dev.zkr.samples.mapreduce;

import java.util.Locale;

/** The job's phases, in order. The master moves the job forward; the current phase is in {@link Layout#state()}. */
public enum Phase {
    /** The master generates the input and enqueues the map tasks. */
    SPLIT,
    /** Workers count the words of one input split each. */
    MAP,
    /** Workers merge the map outputs of one reducer partition each into a sorted run. */
    SHUFFLE,
    /** Workers sum the sorted run of one partition each. */
    REDUCE,
    /** The master collected the result. */
    DONE;

    /** Lower-case name, as used in paths and on the command line. */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** Parses a label (case-insensitive). */
    public static Phase parse(String s) {
        try {
            return valueOf(s.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("unknown phase '" + s + "' (map, shuffle, reduce)");
        }
    }

    /** True for the phases whose tasks run on workers from a queue. */
    boolean hasTasks() {
        return this == MAP || this == SHUFFLE || this == REDUCE;
    }
}
