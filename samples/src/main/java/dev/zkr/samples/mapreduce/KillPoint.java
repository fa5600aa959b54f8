package dev.zkr.samples.mapreduce;

import java.util.Locale;

/** Where {@code --kill-worker} kills a worker. */
public enum KillPoint {
    /** While it holds a map task (after the claim, before the output is written). */
    MAP,
    /** On its way into the shuffle barrier: after the master counted it as a party, before it entered. */
    BARRIER,
    /** While it holds a shuffle task (inside the barrier). */
    SHUFFLE,
    /**
     * While it holds a reduce task and the output commit lock: its part file renamed into place, the manifest not
     * yet updated.
     */
    REDUCE;

    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    public static KillPoint parse(String s) {
        try {
            return valueOf(s.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("unknown kill point '" + s + "' (map, barrier, shuffle, reduce)");
        }
    }
}
