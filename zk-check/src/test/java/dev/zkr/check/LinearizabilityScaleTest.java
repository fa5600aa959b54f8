package dev.zkr.check;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Histories of the simulator's size are decided within a small, deterministic number of search steps (time is
 * measured by {@link CheckTiming}, not asserted here).
 */
class LinearizabilityScaleTest {

    static final RandomHistory.Shape TEN_KEYS = new RandomHistory.Shape(2_000, 10, 5, 30, 0.02);
    static final RandomHistory.Shape ONE_KEY = new RandomHistory.Shape(2_000, 1, 5, 30, 0);

    private static LinearizabilityReport check(List<Operation> history) {
        return new LinearizabilityChecker<>(new ZnodeModel()).check(history);
    }

    @Test
    void twoThousandOpsOverTenKeysAreDecidedInLinearSteps() {
        for (long seed = 1; seed <= 5; seed++) {
            List<Operation> history = RandomHistory.generate(seed, TEN_KEYS);
            LinearizabilityReport report = check(history);
            assertEquals(Verdict.OK, report.verdict(), report::describe);
            assertTrue(report.steps() < 20L * history.size(), () -> "steps " + report.steps());
            LinearizabilityReport forged = check(RandomHistory.withForgedRead(history, seed));
            assertEquals(Verdict.VIOLATION, forged.verdict());
        }
    }

    @Test
    void twoThousandOpsOnOneKeyWithoutIndeterminateOpsAreDecidedInLinearSteps() {
        List<Operation> history = RandomHistory.generate(7, ONE_KEY);
        LinearizabilityReport report = check(history);
        assertEquals(Verdict.OK, report.verdict(), report::describe);
        assertTrue(report.steps() < 20L * history.size(), () -> "steps " + report.steps());
    }
}
