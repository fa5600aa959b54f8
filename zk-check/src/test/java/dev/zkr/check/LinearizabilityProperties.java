package dev.zkr.check;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import net.jqwik.api.Assume;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.DoubleRange;
import net.jqwik.api.constraints.IntRange;

/** Histories made from a sequential execution are accepted; forging one read's value gets them rejected. */
class LinearizabilityProperties {

    private static final LinearizabilityChecker<Znode> CHECKER = new LinearizabilityChecker<>(new ZnodeModel());

    @Property
    void aHistoryWithOverlappingTimingAroundASequentialExecutionIsLinearizable(
            @ForAll long seed,
            @ForAll @IntRange(min = 0, max = 120) int ops,
            @ForAll @IntRange(min = 1, max = 3) int keys,
            @ForAll @IntRange(min = 1, max = 6) int clients,
            @ForAll @IntRange(min = 0, max = 60) int jitter,
            @ForAll @DoubleRange(min = 0, max = 0.3) double indeterminate) {
        List<Operation> history = RandomHistory.generate(seed,
                new RandomHistory.Shape(ops, keys, clients, jitter, indeterminate));
        LinearizabilityReport report = CHECKER.check(history);
        assertEquals(Verdict.OK, report.verdict(), report::describe);
    }

    @Property
    void aReadOfAValueNeverWrittenIsRejected(
            @ForAll long seed,
            @ForAll @IntRange(min = 1, max = 120) int ops,
            @ForAll @IntRange(min = 1, max = 3) int keys,
            @ForAll @IntRange(min = 1, max = 6) int clients,
            @ForAll @IntRange(min = 0, max = 60) int jitter,
            @ForAll @DoubleRange(min = 0, max = 0.3) double indeterminate) {
        List<Operation> history = RandomHistory.generate(seed,
                new RandomHistory.Shape(ops, keys, clients, jitter, indeterminate));
        List<Operation> forged = RandomHistory.withForgedRead(history, seed);
        Assume.that(forged != history);
        LinearizabilityReport report = CHECKER.check(forged);
        assertEquals(Verdict.VIOLATION, report.verdict(), report::describe);
    }
}
