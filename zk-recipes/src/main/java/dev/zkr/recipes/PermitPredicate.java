package dev.zkr.recipes;

import dev.zkr.recipes.internal.ProtectedNames;

import java.util.List;

/**
 * The semaphore's strategy. Each node names the permits it asks for ({@code lease-<n>-}); the holders are the
 * longest prefix of the arrival order whose permits add up to at most {@code permits} (first come, first served: a
 * large request holds back smaller later ones). The first waiter watches the children (any holder's release may let
 * it in); every later waiter watches its predecessor, which can only begin to hold before it. A waiter that begins
 * to hold marks its node, which wakes its successor: no herd, one watch per waiter.
 */
final class PermitPredicate implements NodePredicate {

    static final String BASE = "lease-";

    private final int permits;

    PermitPredicate(int permits) {
        this.permits = permits;
    }

    /** The base of a node asking for {@code n} permits. */
    static String base(int n) {
        return BASE + n + "-";
    }

    /** The permits a node asks for, from its name; 1 for a name that does not say. */
    static int permitsOf(String name) {
        String base = ProtectedNames.base(name);
        if (base.startsWith(BASE) && base.endsWith("-") && base.length() > BASE.length() + 1) {
            try {
                return Math.max(1, Integer.parseInt(base.substring(BASE.length(), base.length() - 1)));
            } catch (NumberFormatException e) {
                return 1;
            }
        }
        return 1;
    }

    @Override
    public Decision decide(List<String> sorted, int ourIndex) {
        long used = 0;
        for (int j = 0; j < ourIndex; j++) {
            used += permitsOf(sorted.get(j));
        }
        long ours = permitsOf(sorted.get(ourIndex));
        if (used + ours <= permits) {
            return Decision.ACQUIRED;
        }
        if (ourIndex == 0 || prefixHolds(sorted, ourIndex - 1)) {
            return Decision.WAIT_FOR_CHILDREN; // everyone ahead holds: we are the first waiter
        }
        return Decision.waitFor(sorted.get(ourIndex - 1));
    }

    /** True if the node at {@code index} holds (the prefix up to it fits). */
    private boolean prefixHolds(List<String> sorted, int index) {
        long used = 0;
        for (int j = 0; j <= index; j++) {
            used += permitsOf(sorted.get(j));
        }
        return used <= permits;
    }

    @Override
    public boolean marksHolders() {
        return true;
    }
}
