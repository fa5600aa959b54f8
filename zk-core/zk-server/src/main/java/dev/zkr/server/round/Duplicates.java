package dev.zkr.server.round;

import dev.zkr.tree.DataTree;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * The leader's check for a write sent again (docs/exactly-once.md): a (session, xid) the tree saved a reply for, or
 * this leader sequenced in its reign and has not applied yet, is a duplicate — and so is one whose reply the tree
 * may have dropped to keep the session's window, or because its client acknowledged having the reply (answered
 * with an error, never applied again). Every txn of an
 * earlier reign is applied before a leader sequences (its EPOCH record is applied first), so the tree and this
 * reign's sequenced xids together know every write that may still apply. Exact xids, not "at or below the highest":
 * a write whose first attempt was lost while a later write of its session got through is applied when it comes
 * again (the simulator's and zk-testkit's soak found such losses). A duplicate is not sequenced again: it waits
 * behind the writes sequenced before it and is answered with the reply the tree saved for it.
 *
 * <p>Round state: touched only inside a round (docs/architecture.md, Threads).
 */
final class Duplicates {

    private final DataTree tree;
    /** Per session, the client xids this leader sequenced in its current reign and has not applied yet. */
    private final Map<Long, Set<Integer>> sequenced = new HashMap<>();
    private long found;

    Duplicates(DataTree tree) {
        this.tree = tree;
    }

    /** True if the session's write {@code xid} was applied or sequenced already. */
    boolean seen(long sessionId, int xid) {
        Set<Integer> s = sequenced.get(sessionId);
        boolean seen = tree.savedReply(sessionId, xid) != null || (s != null && s.contains(xid))
                || tree.replyDropped(sessionId, xid); // the last: answered with an error, never applied again
        if (seen) {
            found++;
        }
        return seen;
    }

    /** How many writes sent again were found, since start. */
    long found() {
        return found;
    }

    /**
     * True if the session's write {@code xid} reached this leader: saved in the tree or sequenced in this reign — or
     * its client acknowledged having its reply (its saved reply is gone then, and it is no hole in the session's
     * writes).
     */
    boolean known(long sessionId, int xid) {
        Set<Integer> s = sequenced.get(sessionId);
        return tree.savedReply(sessionId, xid) != null || (s != null && s.contains(xid))
                || tree.acknowledged(sessionId, xid);
    }

    /** The session's write {@code xid} was sequenced (with a txn). */
    void sequenced(long sessionId, int xid) {
        sequenced.computeIfAbsent(sessionId, k -> new HashSet<>()).add(xid);
    }

    /** A txn naming the session's write {@code xid} was applied: the tree knows it from now on. */
    void applied(long sessionId, int xid) {
        Set<Integer> s = sequenced.get(sessionId);
        if (s != null && s.remove(xid) && s.isEmpty()) {
            sequenced.remove(sessionId);
        }
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
