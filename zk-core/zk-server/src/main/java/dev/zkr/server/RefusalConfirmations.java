package dev.zkr.server;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Leader of an ensemble: writes it refused (validation failed, session gone or moved: items without a txn) are
 * answered only once a quorum confirmed, after the refusal was decided, that this server still leads — one ReadIndex
 * round for every refusal of a round. A deposed leader that does not know it yet decides from a stale tree: its
 * refusal (BAD_VERSION for a node a newer leader deleted) would not be linearizable (whole-server simulator seed
 * 21680). ZooKeeper gets the same effect by proposing an error txn through the quorum.
 */
final class RefusalConfirmations {

    private final List<Pending> unasked = new ArrayList<>();
    private final Map<Long, List<Pending>> asked = new HashMap<>();

    /** {@code p} waits for a confirmation asked after now. */
    void add(Pending p) {
        p.awaitsQuorum = true;
        unasked.add(p);
    }

    /** True if refusals wait for a confirmation not yet asked for. */
    boolean hasUnasked() {
        return !unasked.isEmpty();
    }

    /** The refusals waiting are covered by the read point asked for as {@code ctx}. */
    void asked(long ctx) {
        asked.put(ctx, new ArrayList<>(unasked));
        unasked.clear();
    }

    /**
     * The read point for {@code ctx} came ({@code readZxid} 0: refused, this server may no longer lead); false if
     * {@code ctx} is not one of these.
     */
    boolean answered(long ctx, long readZxid) {
        List<Pending> ps = asked.remove(ctx);
        if (ps == null) {
            return false;
        }
        for (Pending p : ps) {
            p.awaitsQuorum = false;
            p.quorumRefused = readZxid <= 0;
        }
        return true;
    }

    /** This server stopped leading: the items are answered another way. */
    void clear() {
        unasked.clear();
        asked.clear();
    }
}
