package dev.zkr.recipes;

import dev.zkr.recipes.internal.OwnedNode;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Predicate;

/** How a {@link LeaderLatch} competes: fair (queue of sequential nodes) or unfair (race for one node). */
interface Election {

    /**
     * Blocks until this participant leads, reusing {@code previous} if its session still owns it. Returns the
     * node that proves leadership. Interrupt ends the wait (and removes a queued node). {@code early} (null: none)
     * may be told of the node before this returns, on the client's event thread (see
     * {@link SequentialNodeQueue#acquire(OwnedNode, byte[], Deadline, Predicate)}); if it answers true it owns
     * that node's removal should this then fail. An election without such a shortcut never calls it.
     */
    OwnedNode elect(OwnedNode previous, Predicate<OwnedNode> early);

    /**
     * Starts giving leadership (or the place in the queue) up: the delete is sent before this returns; the future
     * completes when it is done (it never fails). Call it once per node.
     */
    CompletableFuture<Void> resign(OwnedNode node);

    /** Leaves entirely (e.g. the unfair participant node); called once when the latch closes. */
    default void leave() {
    }

    /** Participant ids, the leader first (fair: in queue order). */
    List<String> participants();

    /** The current leader's id, if any. */
    Optional<String> leaderId();
}
