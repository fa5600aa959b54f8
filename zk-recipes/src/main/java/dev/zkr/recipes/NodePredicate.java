package dev.zkr.recipes;

import dev.zkr.recipes.internal.ProtectedNames;

import java.util.List;

/**
 * The strategy of a {@link SequentialNodeQueue}: given the sorted participants and our position, either we hold,
 * or we wait for the node named {@code watch} to go, or (watch null, not acquired) we wait for any change among the
 * participants (the semaphore's first waiter, which any holder's release may let in).
 */
@FunctionalInterface
interface NodePredicate {

    record Decision(boolean acquired, String watch) {
        static final Decision ACQUIRED = new Decision(true, null);

        /** Wait for any change of the participants (a child watch on the parent). */
        static final Decision WAIT_FOR_CHILDREN = new Decision(false, null);

        static Decision waitFor(String name) {
            return new Decision(false, name);
        }

        boolean watchesChildren() {
            return !acquired && watch == null;
        }
    }

    Decision decide(List<String> sorted, int ourIndex);

    /**
     * True if a holder whose successors may be waiting on it marks its node (a data change) when it starts to hold,
     * and a waiter that finds its watched node marked looks again instead of waiting: for strategies where a node
     * can begin to hold while nodes ahead of it stay (the semaphore), so its successor learns to look again.
     */
    default boolean marksHolders() {
        return false;
    }

    /**
     * True if the node named {@code later} may hold while {@code earlier}, ahead of it, still holds (two readers of
     * a read/write lock): a waiter whose watched node {@code later} goes, and whose cached listing names
     * {@code earlier} next, then watches {@code earlier} at once, without waiting for a new listing (see
     * {@code SequentialNodeQueue.acquire}). False by default: where a node holds only once every node ahead of it
     * has gone, the cached nodes ahead of a node that went are gone too, and a new listing is the better guess.
     */
    default boolean mayHoldTogether(String earlier, String later) {
        return false;
    }

    /** Exclusive: the first node holds; each other node waits for its predecessor. */
    NodePredicate EXCLUSIVE = (sorted, i) -> i == 0 ? Decision.ACQUIRED : Decision.waitFor(sorted.get(i - 1));

    /**
     * Exclusive, behind nodes of {@code sharedBase} that hold together (the writer of a read/write lock behind its
     * readers): decides as {@link #EXCLUSIVE}; two nodes of {@code sharedBase} may hold together.
     */
    static NodePredicate exclusiveBehind(String sharedBase) {
        return new NodePredicate() {
            @Override
            public Decision decide(List<String> sorted, int i) {
                return EXCLUSIVE.decide(sorted, i);
            }

            @Override
            public boolean mayHoldTogether(String earlier, String later) {
                return ProtectedNames.base(earlier).equals(sharedBase) && ProtectedNames.base(later).equals(sharedBase);
            }
        };
    }

    /** Shared: holds unless an earlier node has the given base; then waits for the nearest such node. */
    static NodePredicate sharedUnless(String exclusiveBase) {
        return (sorted, i) -> {
            for (int j = i - 1; j >= 0; j--) {
                if (ProtectedNames.base(sorted.get(j)).equals(exclusiveBase)) {
                    return Decision.waitFor(sorted.get(j));
                }
            }
            return Decision.ACQUIRED;
        };
    }
}
