package dev.zkr.cli.inspect;

import java.util.ArrayList;
import java.util.List;

/**
 * Reads a lock from the children of its node, as zk-recipes writes them: every acquirer queues one
 * ephemeral-sequential node, {@code _c_<uuid>-lock-<seq>} for {@code DistributedLock}, {@code _c_<uuid>-read-<seq>}
 * or {@code _c_<uuid>-write-<seq>} for {@code ReadWriteLock}. In sequence order: the mutex's first node holds;
 * the read/write lock's holders are a first writer alone, or the readers ahead of the first writer. Everyone else
 * waits, in that order. The fencing token is the holder node's czxid; a holder whose node's data reads
 * {@code revoke} has been asked to give the lock up. Pure.
 */
public final class LockLayout {

    static final String MUTEX = "lock-";
    static final String READ = "read-";
    static final String WRITE = "write-";
    static final String REVOKE = "revoke";

    private LockLayout() {
    }

    /** One queued node of a lock. */
    public record LockNode(String name, String side, long sequence, long session, long fencingToken, long since,
                           boolean revokeRequested) {
    }

    /**
     * A lock's state.
     *
     * @param kind    {@code mutex}, {@code read-write}, or {@code none} (no lock nodes)
     * @param holders who holds it (one, or several readers)
     * @param waiters who waits, in arrival order
     */
    public record LockReport(String kind, List<LockNode> holders, List<LockNode> waiters) {

        public boolean isEmpty() {
            return holders.isEmpty() && waiters.isEmpty();
        }
    }

    /** The lock whose node has these children (other children are ignored). */
    public static LockReport read(List<Znode> children) {
        List<Znode> mutex = Names.sequential(children, List.of(MUTEX));
        List<Znode> rw = Names.sequential(children, List.of(READ, WRITE));
        if (mutex.isEmpty() && rw.isEmpty()) {
            return new LockReport("none", List.of(), List.of());
        }
        if (rw.isEmpty()) {
            List<LockNode> all = mutex.stream().map(LockLayout::node).toList();
            return new LockReport("mutex", all.subList(0, 1), all.subList(1, all.size()));
        }
        List<LockNode> all = rw.stream().map(LockLayout::node).toList();
        List<LockNode> holders = new ArrayList<>();
        for (LockNode n : all) {
            if (n.side().equals("write")) {
                if (holders.isEmpty()) {
                    holders.add(n);
                }
                break;
            }
            holders.add(n);
        }
        return new LockReport("read-write", holders, all.subList(holders.size(), all.size()));
    }

    private static LockNode node(Znode z) {
        String base = Names.base(z.name());
        String side = base.substring(0, base.length() - 1);
        return new LockNode(z.name(), side, Names.sequence(z.name()), z.session(), z.stat().czxid(),
                z.stat().ctime(), REVOKE.equals(z.text()));
    }

    /** True if any child is a lock node. */
    public static boolean hasLockNodes(List<Znode> children) {
        return !Names.sequential(children, List.of(MUTEX, READ, WRITE)).isEmpty();
    }
}
