package dev.zkr.recipes;

import java.util.List;
import java.util.Optional;

/** How a {@link LeaderLatch} competes: fair (queue of sequential nodes) or unfair (race for one node). */
interface Election {

    /**
     * Blocks until this participant leads, reusing {@code previous} if its session still owns it. Returns the
     * node that proves leadership. Interrupt ends the wait (and removes a queued node).
     */
    OwnedNode elect(OwnedNode previous);

    /** Gives leadership (or the place in the queue) up. */
    void resign(OwnedNode node);

    /** Leaves entirely (e.g. the unfair participant node); called once when the latch closes. */
    default void leave() {
    }

    /** Participant ids, the leader first (fair: in queue order). */
    List<String> participants();

    /** The current leader's id, if any. */
    Optional<String> leaderId();
}
