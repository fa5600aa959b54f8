package dev.zkr.cli.inspect;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Reads a {@code LeaderLatch} election from its nodes, as zk-recipes writes them. <b>Fair</b>: each participant
 * queues an ephemeral-sequential node {@code _c_<uuid>-latch-<seq>} holding its id (UTF-8); the first in sequence
 * order leads, the others follow in that order. <b>Unfair</b>: the leader owns the ephemeral node {@code leader}
 * (data: its id) and every participant has an ephemeral node under {@code members/} (data: its id). The fencing
 * token is the czxid of the leader's node. Pure.
 */
public final class ElectionLayout {

    static final String LATCH = "latch-";
    static final String LEADER = "leader";
    static final String MEMBERS = "members";

    private ElectionLayout() {
    }

    /** One participant: its id, its node, session and since when it takes part. */
    public record Participant(String id, String node, long session, long since) {
    }

    /**
     * An election's state.
     *
     * @param mode         {@code fair}, {@code unfair}, or {@code none} (no election nodes)
     * @param leader       the leader, or null if nobody leads
     * @param fencingToken the leader's fencing token (czxid of its node), -1 if nobody leads
     * @param participants everyone, the leader first (fair: in queue order; unfair: in joining order)
     */
    public record LeaderReport(String mode, Participant leader, long fencingToken, List<Participant> participants) {
    }

    /** True if the children look like an unfair election ({@code leader} or {@code members}). */
    public static boolean isUnfair(List<Znode> children) {
        return children.stream().anyMatch(z -> z.name().equals(LEADER) || z.name().equals(MEMBERS));
    }

    /** A fair election from the children of its node. */
    public static LeaderReport fair(List<Znode> children) {
        List<Znode> queue = Names.sequential(children, List.of(LATCH));
        if (queue.isEmpty()) {
            return new LeaderReport("none", null, -1, List.of());
        }
        List<Participant> all = queue.stream().map(ElectionLayout::participant).toList();
        return new LeaderReport("fair", all.get(0), queue.get(0).stat().czxid(), all);
    }

    /**
     * An unfair election from its {@code leader} node (null if absent) and the children of {@code members}. The
     * leader is listed first, then the other members in joining (czxid) order.
     */
    public static LeaderReport unfair(Znode leader, List<Znode> members) {
        List<Znode> sorted = new ArrayList<>(members);
        sorted.sort(Comparator.comparingLong(z -> z.stat().czxid()));
        List<Participant> all = new ArrayList<>();
        Participant lead = null;
        if (leader != null) {
            lead = participant(leader);
            all.add(lead);
        }
        boolean leaderSkipped = false;
        for (Znode m : sorted) {
            if (!leaderSkipped && leader != null && m.session() == leader.session() && m.text().equals(leader.text())) {
                leaderSkipped = true; // the leader's own member node
                continue;
            }
            all.add(participant(m));
        }
        return new LeaderReport("unfair", lead, leader == null ? -1 : leader.stat().czxid(), all);
    }

    private static Participant participant(Znode z) {
        return new Participant(z.text(), z.name(), z.session(), z.stat().ctime());
    }
}
