package dev.zkr.server.round;

import dev.zkr.tree.DataTree;

import java.util.HashMap;
import java.util.Map;

/**
 * The leader's check for a write sent again (docs/exactly-once.md): a (session, xid) at or below the highest xid the
 * tree applied for the session, or the highest this leader sequenced for it in its reign, is a duplicate. Every txn
 * of an earlier reign is applied before a leader sequences (its EPOCH record is applied first), so the tree and this
 * reign's sequenced xids together know every write that may still apply. A duplicate is not sequenced again: it
 * waits behind the writes sequenced before it and is answered with the reply the tree saved for it.
 *
 * <p>Round state: touched only inside a round (docs/architecture.md, Threads).
 */
final class Duplicates {

    private final DataTree tree;
    /** The highest client xid this leader sequenced per session, in its current reign. */
    private final Map<Long, Integer> sequenced = new HashMap<>();
    private long found;

    Duplicates(DataTree tree) {
        this.tree = tree;
    }

    /** True if the session's write {@code xid} was applied or sequenced already. */
    boolean seen(long sessionId, int xid) {
        Integer s = sequenced.get(sessionId);
        boolean seen = tree.appliedUpTo(sessionId, xid) || (s != null && xid - s <= 0); // serial numbers: xids wrap
        if (seen) {
            found++;
        }
        return seen;
    }

    /** How many writes sent again were found, since start. */
    long found() {
        return found;
    }

    /** The session's write {@code xid} was sequenced (with a txn). */
    void sequenced(long sessionId, int xid) {
        sequenced.merge(sessionId, xid, (a, b) -> b - a > 0 ? b : a);
    }

    /** The session is closed. */
    void closed(long sessionId) {
        sequenced.remove(sessionId);
    }

    /** A reign ended or began: what was sequenced in it is applied (the tree knows) or will never be. */
    void reset() {
        sequenced.clear();
    }
}
