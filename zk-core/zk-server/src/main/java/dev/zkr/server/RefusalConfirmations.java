package dev.zkr.server;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Leader of an ensemble: writes it refused (validation failed, session gone or moved: items without a txn) are
 * answered only once a quorum confirmed, after the refusal was decided, that this server still leads — one ReadIndex
 * round for every refusal of a round. The writes sequenced after a refusal are applied meanwhile (the leader's tree
 * does not lag); only the replies wait, each connection's in its order. A deposed leader that does not know it yet decides from a stale tree: its
 * refusal (BAD_VERSION for a node a newer leader deleted) would not be linearizable (whole-server simulator seed
 * 21680). ZooKeeper gets the same effect by proposing an error txn through the quorum.
 */
final class RefusalConfirmations {

    private final List<Pending> unasked = new ArrayList<>();
    private final Map<Long, List<Pending>> asked = new HashMap<>();
    /** Refusals decided (every write before them applied) and still waiting for their confirmation. */
    private int decidedWaiting;

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
     * {@code p}, still waiting for its confirmation, reached the head of the write order with the tree at
     * {@code zxid}: its reply is decided.
     */
    void decided(Pending p, long zxid) {
        p.refusalDecided = true;
        p.decidedZxid = zxid;
        decidedWaiting++;
    }

    /** True while a decided refusal waits for its confirmation. */
    boolean waiting() {
        return decidedWaiting > 0;
    }

    /**
     * The read point for {@code ctx} came ({@code readZxid} 0: refused, this server may no longer lead): the
     * refusals it covers, or null if {@code ctx} is not one of these.
     */
    List<Pending> answered(long ctx, long readZxid) {
        List<Pending> ps = asked.remove(ctx);
        if (ps == null) {
            return null;
        }
        for (Pending p : ps) {
            p.awaitsQuorum = false;
            p.quorumRefused = readZxid <= 0;
            if (p.refusalDecided) {
                decidedWaiting--;
            }
        }
        return ps;
    }

    /** This server stopped leading: returns the decided refusals still waiting (the others are still sequenced). */
    List<Pending> clear() {
        List<Pending> out = new ArrayList<>();
        for (List<Pending> ps : asked.values()) {
            for (Pending p : ps) {
                if (p.refusalDecided) {
                    out.add(p);
                }
            }
        }
        unasked.clear();
        asked.clear();
        decidedWaiting = 0;
        return out;
    }
}
