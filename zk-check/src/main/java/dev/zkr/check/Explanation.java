package dev.zkr.check;

import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Why a partition is not linearizable: the longest linearisation the search found, the model state after it, and
 * the completed operations that had to come next (invoked before the earliest pending reply) but could not.
 *
 * @param linearised the longest linearisable prefix, in linearisation order
 * @param statesAfter the model states after it (one state unless the model is nondeterministic)
 * @param blocked    the operations that could not be placed after it, each with the reason
 */
public record Explanation(List<Step> linearised, Set<?> statesAfter, List<Blocked> blocked) {

    /** Lines of the prefix that {@link #describe()} shows; earlier ones are counted, not listed. */
    static final int SHOWN_STEPS = 12;

    public Explanation {
        linearised = List.copyOf(linearised);
        statesAfter = Set.copyOf(statesAfter);
        blocked = List.copyOf(blocked);
    }

    /** One linearised operation and the states after it. */
    public record Step(Operation op, Set<?> statesAfter) {
    }

    /** An operation that could not be placed, and why. */
    public record Blocked(Operation op, String reason) {
    }

    /** A few readable lines: the end of the prefix, then the operations that could not follow it. */
    public String describe() {
        StringBuilder out = new StringBuilder();
        int hidden = Math.max(0, linearised.size() - SHOWN_STEPS);
        out.append("longest linearisable prefix: ").append(linearised.size()).append(" ops");
        if (hidden > 0) {
            out.append(" (first ").append(hidden).append(" not shown)");
        }
        out.append('\n');
        for (Step step : linearised.subList(hidden, linearised.size())) {
            out.append("  ").append(step.op()).append("   ⇒ ").append(states(step.statesAfter())).append('\n');
        }
        out.append("then none of these can be placed (state ").append(states(statesAfter)).append("):\n");
        for (Blocked b : blocked) {
            out.append("  ").append(b.op()).append("   — ").append(b.reason()).append('\n');
        }
        return out.toString();
    }

    static String states(Set<?> states) {
        if (states.size() == 1) {
            return String.valueOf(states.iterator().next());
        }
        return states.stream().map(String::valueOf).sorted().collect(Collectors.joining(" | ", "{", "}"));
    }
}
