package dev.zkr.cli.inspect;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Reads a barrier from its node, as zk-recipes writes it. <b>Double barrier</b> ({@code DoubleBarrier}): each
 * member that entered has an ephemeral child named by its member id; the last to arrive creates the child
 * {@code ready} (the barrier is open from then on) and marks the lowest member's node with the data
 * {@code lowest}; leaving deletes the member's node, and the last one out deletes {@code ready}. The number of
 * parties is not stored in the nodes: pass it to learn how many entered or left. <b>Simple barrier</b>
 * ({@code SimpleBarrier}): the node itself, with no children; it is up while the node exists. Pure.
 */
public final class BarrierLayout {

    static final String READY = "ready";
    static final String LOWEST = "lowest";

    private BarrierLayout() {
    }

    /** A member present in the barrier. */
    public record Member(String id, long session, long since, boolean markedLowest) {
    }

    /**
     * A barrier's state.
     *
     * @param kind       {@code double} or {@code simple}
     * @param state      double: {@code entering} (waiting for parties), {@code open} (all entered, nobody left
     *                   yet as far as can be told), {@code leaving} (open, some left), {@code empty}; simple:
     *                   {@code up}
     * @param parties    the number of parties if known, else null
     * @param present    the members in the barrier now (entered and not left), by id
     * @param openSince  when {@code ready} was created (epoch millis), or null while not open
     * @param left       how many left, if it can be told (open and parties known), else null
     * @param owner      simple barrier: the session owning an ephemeral barrier node (0: persistent)
     */
    public record BarrierReport(String kind, String state, Integer parties, List<Member> present, Long openSince,
                                Integer left, long owner) {

        /** How many are still to come before it opens, if known (entering, parties known), else null. */
        public Integer missing() {
            return "entering".equals(state) && parties != null ? Math.max(0, parties - present.size()) : null;
        }
    }

    /** A simple barrier: its node exists and has no children. */
    public static BarrierReport simple(Znode node) {
        return new BarrierReport("simple", "up", null, List.of(), null, null, node.session());
    }

    /** A double barrier from the children of its node; {@code parties} may be null (unknown). */
    public static BarrierReport doubleBarrier(List<Znode> children, Integer parties) {
        Znode ready = null;
        List<Member> present = new ArrayList<>();
        for (Znode z : children) {
            if (z.name().equals(READY)) {
                ready = z;
            } else {
                present.add(new Member(z.name(), z.session(), z.stat().ctime(), LOWEST.equals(z.text())));
            }
        }
        present.sort(Comparator.comparing(Member::id));
        Long openSince = ready == null ? null : ready.stat().ctime();
        Integer left = null;
        String state;
        if (ready == null) {
            state = present.isEmpty() ? "empty" : "entering";
        } else {
            if (parties != null) {
                left = Math.max(0, parties - present.size());
            }
            state = left != null && left > 0 ? "leaving" : "open";
        }
        return new BarrierReport("double", state, parties, present, openSince, left, 0);
    }
}
