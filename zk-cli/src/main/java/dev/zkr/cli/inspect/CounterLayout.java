package dev.zkr.cli.inspect;

import java.nio.ByteBuffer;
import java.util.List;

/**
 * Reads a {@code DistributedCounter} from its nodes, as zk-recipes writes them. The child {@code value} holds
 * {@code (base: long, c0: int, tag: long)}, big-endian; the counter is {@code base + (creates - c0)}, where
 * {@code creates}, the number of children ever created under {@code value}, is {@code (cversion + numChildren) / 2}
 * (cversion counts creates and deletes). Each increment leaves ephemeral-sequential children {@code i-...} until
 * its next increment. The child {@code freeze} exists while a compare-and-set holds the gate, with one ephemeral
 * child {@code h-<random>} naming the holder. A counter never written (no {@code value}) reads 0. Pure.
 */
public final class CounterLayout {

    static final String VALUE = "value";
    static final String FREEZE = "freeze";
    private static final int BYTES = Long.BYTES + Integer.BYTES + Long.BYTES;

    private CounterLayout() {
    }

    /**
     * A counter's state.
     *
     * @param value        the counter
     * @param base         the value stored by the last compare-and-set or set
     * @param c0           creates at that write
     * @param creates      increments' children ever created under {@code value}
     * @param version      data version of {@code value} (one per compare-and-set or set)
     * @param pending      increment children still present (each goes at its client's next increment)
     * @param gateHolder   session holding the compare-and-set gate, 0 if free, -1 if held by nobody (orphan gate)
     * @param initialised  false if {@code value} does not exist yet
     */
    public record CounterReport(long value, long base, int c0, int creates, int version, int pending,
                                long gateHolder, boolean initialised) {
    }

    /** The counter from its {@code value} node (null if absent) and its {@code freeze} gate's children (null: no gate). */
    public static CounterReport read(Znode value, List<Znode> gateChildren) {
        long holder = gateChildren == null ? 0 : gateChildren.isEmpty() ? -1 : gateChildren.get(0).session();
        if (value == null) {
            return new CounterReport(0, 0, 0, 0, -1, 0, holder, false);
        }
        int creates = (value.stat().cversion() + value.stat().numChildren()) / 2;
        long base = 0;
        int c0 = 0;
        if (value.data().length >= BYTES) {
            ByteBuffer b = ByteBuffer.wrap(value.data());
            base = b.getLong();
            c0 = b.getInt();
        }
        return new CounterReport(base + (creates - c0), base, c0, creates, value.stat().version(),
                value.stat().numChildren(), holder, true);
    }
}
