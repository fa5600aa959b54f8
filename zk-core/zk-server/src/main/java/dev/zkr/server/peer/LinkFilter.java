package dev.zkr.server.peer;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Test partitions: which directed links (from → to) silently drop messages. Sockets stay up, as in a real
 * partition; the sender drops what it would send on a cut link and the receiver drops what arrives on one. One
 * filter may be shared by every transport of an in-JVM ensemble. Thread-safe.
 */
public final class LinkFilter {

    private final Set<Long> cut = ConcurrentHashMap.newKeySet();
    private volatile Set<Integer> side = Set.of();

    /** Drops messages from {@code from} to {@code to} (one way) until {@link #heal()}. */
    public void cut(int from, int to) {
        cut.add(key(from, to));
    }

    /** The listed servers lose connectivity with all others (both ways) until {@link #heal()}. */
    public void partition(int... ids) {
        Set<Integer> s = ConcurrentHashMap.newKeySet();
        for (int id : ids) {
            s.add(id);
        }
        side = Set.copyOf(s);
    }

    /** = {@code partition(id)}. */
    public void isolate(int id) {
        partition(id);
    }

    /** Removes every partition and cut. */
    public void heal() {
        side = Set.of();
        cut.clear();
    }

    /** Whether a message from {@code from} to {@code to} gets through. */
    public boolean allows(int from, int to) {
        Set<Integer> s = side;
        return (s.isEmpty() || s.contains(from) == s.contains(to)) && !cut.contains(key(from, to));
    }

    private static long key(int from, int to) {
        return ((long) from << 32) | (to & 0xffffffffL);
    }
}
