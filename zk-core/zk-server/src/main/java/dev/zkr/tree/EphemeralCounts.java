package dev.zkr.tree;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;

/**
 * How many ephemeral nodes each session gains or loses through changes prepared but not yet applied, so that the
 * per-session cap sees the projected count (applied count from the tree plus this delta). Released by zxid like
 * {@link PendingChanges}. Not thread-safe: owned by {@link TxnPreparer}.
 */
final class EphemeralCounts {

    private record Delta(long zxid, long sessionId, int delta) {
    }

    private final Map<Long, Integer> bySession = new HashMap<>();
    private final ArrayDeque<Delta> queue = new ArrayDeque<>();

    /** The pending change of the session's ephemeral count. */
    int delta(long sessionId) {
        return bySession.getOrDefault(sessionId, 0);
    }

    /** Records the deltas of one prepared txn. */
    void put(long zxid, Map<Long, Integer> deltas) {
        deltas.forEach((session, d) -> {
            if (d != 0) {
                queue.addLast(new Delta(zxid, session, d));
                bySession.merge(session, d, Integer::sum);
            }
        });
    }

    /** Releases every delta with a zxid up to this one (the tree's own count now includes them). */
    void applied(long zxid) {
        while (!queue.isEmpty() && queue.peekFirst().zxid() <= zxid) {
            Delta d = queue.pollFirst();
            int left = bySession.merge(d.sessionId(), -d.delta(), Integer::sum);
            if (left == 0) {
                bySession.remove(d.sessionId());
            }
        }
    }
}
