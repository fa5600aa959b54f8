package dev.zkr.chaos.recipes;

import dev.zkr.chaos.history.Op;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Who holds now, as far as the history shows: the worker of the most recent lock acquire or latch election whose
 * hold has no release, revocation or resignation recorded yet. The client nemesis cuts that worker off, since a
 * holder cut off from the ensemble is where lock and leader recipes fail. Pure.
 */
public final class Holders {

    private Holders() {
    }

    /** The process (worker) of the latest open hold, or -1 when nothing is held (or the workload has no holds). */
    public static int latest(List<Op> ops) {
        Map<String, Integer> open = new LinkedHashMap<>();
        for (Op op : ops) {
            switch (op.f()) {
                case Events.ACQUIRE, Events.ELECTED -> {
                    if (op.ok()) {
                        open.remove(op.key());
                        open.put(op.key(), op.process()); // re-inserted: the latest last
                    }
                }
                case Events.RELEASE, Events.REVOKED, Events.RESIGN -> open.remove(op.key());
                default -> {
                }
            }
        }
        int latest = -1;
        for (int process : open.values()) {
            latest = process;
        }
        return latest;
    }
}
