package dev.zkr.recipes;

import dev.zkr.client.ZkClient;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What the asynchronous waiters ({@link AsyncAcquire}) of one lock path through one client share, whichever lock
 * object they came through: their {@link ListingBatch} and the names of the recent exclusive holders among them.
 * An entry lives while at least one waiter has {@linkplain #join joined} and not yet {@linkplain #leave left}.
 *
 * <p>The holders' names let a waiter of the mutex whose watched predecessor held through this client hold without
 * any listing when that node goes: with the exclusive predicate, every node before a holder was gone when it began
 * to hold, and no node appears before an existing one (sequence numbers grow), so nothing is left ahead. A name
 * missing from it (forgotten, or held through another client) only costs a listing.
 */
final class PathWaiters {

    private static final int HELD_REMEMBERED = 256;
    private static final Map<Key, PathWaiters> TABLE = new HashMap<>(); // guarded by itself

    private final Key key;
    private final ListingBatch listings;
    private final LinkedHashMap<String, Boolean> held = new LinkedHashMap<>() { // guarded by itself
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
            return size() > HELD_REMEMBERED;
        }
    };
    private int members; // guarded by TABLE

    private PathWaiters(Key key) {
        this.key = key;
        this.listings = new ListingBatch(key.client, key.path);
    }

    /** Joins (creating it if need be) the shared state of the waiters of {@code path} through {@code client}. */
    static PathWaiters join(ZkClient client, String path) {
        Key key = new Key(client, path);
        synchronized (TABLE) {
            PathWaiters w = TABLE.computeIfAbsent(key, PathWaiters::new);
            w.members++;
            return w;
        }
    }

    /** One waiter is done (once per {@link #join}); the last one to leave drops the entry. */
    void leave() {
        synchronized (TABLE) {
            if (--members == 0) {
                TABLE.remove(key, this);
            }
        }
    }

    /** True while waiters of {@code path} through {@code client} have joined and not all left (for tests). */
    static boolean tracks(ZkClient client, String path) {
        synchronized (TABLE) {
            return TABLE.containsKey(new Key(client, path));
        }
    }

    ListingBatch listings() {
        return listings;
    }

    /** Notes that our node {@code name} holds under the exclusive predicate. */
    void noteHeldExclusively(String name) {
        synchronized (held) {
            held.put(name, Boolean.TRUE);
        }
    }

    /** True if the node {@code name} held exclusively through this client (of the last few hundred holders). */
    boolean heldExclusively(String name) {
        synchronized (held) {
            return held.containsKey(name);
        }
    }

    /** A client (by identity: wrappers of one client are apart) and a path. */
    private record Key(ZkClient client, String path) {
        @Override
        public boolean equals(Object o) {
            return o instanceof Key k && k.client == client && k.path.equals(path);
        }

        @Override
        public int hashCode() {
            return System.identityHashCode(client) * 31 + path.hashCode();
        }
    }
}
