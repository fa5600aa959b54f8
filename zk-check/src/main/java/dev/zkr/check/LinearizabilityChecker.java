package dev.zkr.check;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * Decides whether a history is linearizable with respect to a {@link Model}, key by key (P-compositionality:
 * linearizability of each independent object implies it for the whole).
 *
 * <pre>{@code
 * LinearizabilityReport report = new LinearizabilityChecker<>(new ZnodeModel()).check(history);
 * if (report.verdict() != Verdict.OK) fail(report.describe());
 * }</pre>
 *
 * @param <S> the model's state
 */
public final class LinearizabilityChecker<S> {

    /** Search steps allowed per key by default. */
    public static final long DEFAULT_STEP_BUDGET = 10_000_000;

    private final Model<S> model;
    private final long stepBudget;

    /** A checker with {@link #DEFAULT_STEP_BUDGET}. */
    public LinearizabilityChecker(Model<S> model) {
        this(model, DEFAULT_STEP_BUDGET);
    }

    /** A checker that gives up on a key (verdict {@link Verdict#UNKNOWN}) after {@code stepBudget} search steps. */
    public LinearizabilityChecker(Model<S> model, long stepBudget) {
        if (stepBudget <= 0) {
            throw new IllegalArgumentException("step budget must be positive: " + stepBudget);
        }
        this.model = Objects.requireNonNull(model, "model");
        this.stepBudget = stepBudget;
    }

    /** Checks every key of the history (operations in any order). */
    public LinearizabilityReport check(Collection<Operation> history) {
        Map<String, List<Operation>> byKey = new TreeMap<>();
        for (Operation op : history) {
            byKey.computeIfAbsent(op.key(), k -> new ArrayList<>()).add(op);
        }
        List<PartitionResult> results = new ArrayList<>(byKey.size());
        byKey.forEach((key, ops) -> results.add(new WingGongSearch<>(model, ops, stepBudget).run(key)));
        return new LinearizabilityReport(results);
    }
}
