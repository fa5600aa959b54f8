package dev.zkr.recipes;

import dev.zkr.recipes.internal.ProtectedNames;

import java.util.List;

/**
 * The strategy of a {@link SequentialNodeQueue}: given the sorted participants and our position, either we hold
 * (watch is null) or we wait for the node named {@code watch} to go.
 */
@FunctionalInterface
interface NodePredicate {

    record Decision(boolean acquired, String watch) {
        static final Decision ACQUIRED = new Decision(true, null);

        static Decision waitFor(String name) {
            return new Decision(false, name);
        }
    }

    Decision decide(List<String> sorted, int ourIndex);

    /** Exclusive: the first node holds; each other node waits for its predecessor. */
    NodePredicate EXCLUSIVE = (sorted, i) -> i == 0 ? Decision.ACQUIRED : Decision.waitFor(sorted.get(i - 1));

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
