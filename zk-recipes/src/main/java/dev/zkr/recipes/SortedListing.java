package dev.zkr.recipes;

import dev.zkr.client.Children;
import dev.zkr.recipes.internal.ProtectedNames;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One listing of a lock path, sorted by sequence once and shared by every waiter it serves ({@link ListingBatch}):
 * each finds its own position through an index built on first use, so a reply of n names serving n waiters costs
 * O(n) rather than n scans of n names.
 */
final class SortedListing {

    private final List<String> sorted;
    private Map<String, Integer> positions; // guarded by this; built on first indexOf

    private SortedListing(List<String> sorted) {
        this.sorted = List.copyOf(sorted);
    }

    static SortedListing of(Children children) {
        return new SortedListing(ProtectedNames.sortBySequence(children.names()));
    }

    /** The participants' names, sorted by sequence (immutable). */
    List<String> names() {
        return sorted;
    }

    /** The position of {@code name} in {@link #names()}, or -1. */
    int indexOf(String name) {
        Map<String, Integer> p;
        synchronized (this) {
            if (positions == null) {
                positions = new HashMap<>(sorted.size() * 2);
                for (int i = 0; i < sorted.size(); i++) {
                    positions.put(sorted.get(i), i);
                }
            }
            p = positions;
        }
        Integer i = p.get(name);
        return i == null ? -1 : i;
    }
}
