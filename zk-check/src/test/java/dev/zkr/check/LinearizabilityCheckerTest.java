package dev.zkr.check;

import static dev.zkr.check.Histories.check;
import static dev.zkr.check.Histories.create;
import static dev.zkr.check.Histories.delete;
import static dev.zkr.check.Histories.failed;
import static dev.zkr.check.Histories.ok;
import static dev.zkr.check.Histories.okAbsent;
import static dev.zkr.check.Histories.read;
import static dev.zkr.check.Histories.set;
import static dev.zkr.check.ZnodeModel.BAD_VERSION;
import static dev.zkr.check.ZnodeModel.NODE_EXISTS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Known-good and known-bad histories, several in the shape of Porcupine's and Knossos's examples. */
class LinearizabilityCheckerTest {

    /** A history whose node /r holds 'x'@v0 from time 0..1. */
    private static Histories created() {
        return new Histories().op(9, 0, 1, "/r", create("x"), ok("x", 0));
    }

    private static void assertLinearizable(Histories h) {
        LinearizabilityReport report = h.check();
        assertEquals(Verdict.OK, report.verdict(), report::describe);
    }

    private static PartitionResult assertViolation(Histories h) {
        LinearizabilityReport report = h.check();
        assertEquals(Verdict.VIOLATION, report.verdict(), report::describe);
        return report.failures().get(0);
    }

    // ---- known good ----

    @Test
    void anEmptyHistoryIsLinearizable() {
        assertLinearizable(new Histories());
    }

    @Test
    void aSequentialHistoryIsLinearizable() {
        assertLinearizable(created()
                .op(1, 2, 3, "/r", set("y", 0), ok("y", 1))
                .op(1, 4, 5, "/r", read(), ok("y", 1))
                .op(1, 6, 7, "/r", delete(1), ok())
                .op(1, 8, 9, "/r", read(), okAbsent()));
    }

    @Test
    void readsConcurrentWithAWriteMaySeeEitherValue() {
        // Porcupine's first example: a read overlapping the write sees the new value, a longer one the old.
        assertLinearizable(created()
                .op(1, 10, 40, "/r", set("y", -1), ok("y", 1))
                .op(2, 15, 25, "/r", read(), ok("y", 1))
                .op(3, 12, 35, "/r", read(), ok("x", 0)));
    }

    @Test
    void intervalsThatTouchAtOneInstantCountAsOverlapping() {
        assertLinearizable(created()
                .op(1, 10, 20, "/r", set("y", -1), ok("y", 1))
                .op(2, 20, 30, "/r", read(), ok("x", 0)));
        assertViolation(created()
                .op(1, 10, 19, "/r", set("y", -1), ok("y", 1))
                .op(2, 20, 30, "/r", read(), ok("x", 0)));
    }

    @Test
    void concurrentUnconditionalWritesTakeVersionsInTheirLinearisationOrder() {
        assertLinearizable(created()
                .op(1, 10, 30, "/r", set("a", -1), ok("a", 2))
                .op(2, 11, 31, "/r", set("b", -1), ok("b", 1))
                .op(3, 40, 41, "/r", read(), ok("a", 2)));
    }

    @Test
    void oneOfTwoConcurrentCasFromTheSameVersionFails() {
        assertLinearizable(created()
                .op(1, 10, 30, "/r", set("a", 0), failed(BAD_VERSION))
                .op(2, 11, 31, "/r", set("b", 0), ok("b", 1))
                .op(3, 40, 41, "/r", read(), ok("b", 1)));
    }

    @Test
    void anIndeterminateWriteSeenByLaterReadsIsLinearizable() {
        assertLinearizable(created()
                .pending(1, 10, "/r", set("y", -1))
                .op(2, 20, 21, "/r", read(), ok("x", 0))
                .op(2, 30, 31, "/r", read(), ok("y", 1))
                .op(3, 40, 41, "/r", read(), ok("y", 1)));
    }

    @Test
    void anIndeterminateWriteNeverSeenIsLinearizable() {
        assertLinearizable(created()
                .pending(1, 10, "/r", set("y", -1))
                .op(2, 20, 21, "/r", read(), ok("x", 0))
                .op(2, 30, 31, "/r", set("z", 0), ok("z", 1))
                .op(3, 40, 41, "/r", read(), ok("z", 1)));
    }

    @Test
    void anIndeterminateCreateMayNeverHappenWhileAnotherClientCreates() {
        assertLinearizable(new Histories()
                .pending(1, 0, "/r", create("mine"))
                .op(2, 5, 6, "/r", create("theirs"), ok("theirs", 0))
                .op(2, 7, 8, "/r", read(), ok("theirs", 0)));
    }

    @Test
    void failuresThatTellTheStateAreLinearizableWhereTheStateFits() {
        assertLinearizable(created()
                .op(1, 2, 3, "/r", create("again"), failed(NODE_EXISTS))
                .op(1, 4, 5, "/r", set("y", 7), failed(BAD_VERSION))
                .op(1, 6, 7, "/r", delete(0), ok())
                .op(1, 8, 9, "/r", delete(-1), failed(ZnodeModel.NO_NODE)));
    }

    @Test
    void keysAreCheckedIndependently() {
        LinearizabilityReport report = created()
                .op(1, 2, 3, "/r", read(), ok("x", 0))
                .op(2, 0, 1, "/s", create("s"), ok("s", 0))
                .op(2, 5, 6, "/s", read(), okAbsent())
                .check();
        assertEquals(Verdict.VIOLATION, report.verdict());
        assertEquals(List.of("/r", "/s"), report.partitions().stream().map(PartitionResult::key).toList());
        assertEquals(Verdict.OK, report.partitions().get(0).verdict());
        assertEquals(List.of("/s"), report.failures().stream().map(PartitionResult::key).toList());
    }

    // ---- known bad ----

    @Test
    void aReadReturningAValueFromTheFutureIsNotLinearizable() {
        assertViolation(created()
                .op(2, 5, 8, "/r", read(), ok("y", 1))
                .op(1, 10, 20, "/r", set("y", -1), ok("y", 1)));
    }

    @Test
    void aStaleReadAfterACompletedWriteIsNotLinearizable() {
        PartitionResult failure = assertViolation(created()
                .op(1, 10, 20, "/r", set("y", -1), ok("y", 1))
                .op(2, 30, 40, "/r", read(), ok("x", 0)));
        Explanation why = failure.explanation();
        assertEquals(2, why.linearised().size(), why::describe);
        assertEquals(new ZnodeCall.SetData("y", -1), why.linearised().get(1).op().call());
        assertEquals(List.of(new ZnodeCall.Read()), why.blocked().stream().map(b -> b.op().call()).toList());
        assertTrue(why.blocked().get(0).reason().contains("impossible"), why::describe);
        assertTrue(failure.describe().contains("'y'@v1"), failure::describe);
    }

    @Test
    void aLostAcknowledgedWriteIsNotLinearizable() {
        // 'y' was acknowledged at v1, yet the next write also got v1 and nobody deleted the node
        assertViolation(created()
                .op(1, 10, 20, "/r", set("y", -1), ok("y", 1))
                .op(2, 30, 40, "/r", set("z", -1), ok("z", 1)));
    }

    @Test
    void twoSuccessfulCasFromTheSameVersionAreNotLinearizable() {
        assertViolation(created()
                .op(1, 10, 30, "/r", set("a", 0), ok())
                .op(2, 11, 31, "/r", set("b", 0), ok()));
    }

    @Test
    void aReadSeeingAnIndeterminateWriteThenAReadNotSeeingItIsNotLinearizable() {
        PartitionResult failure = assertViolation(created()
                .pending(1, 10, "/r", set("y", -1))
                .op(2, 20, 21, "/r", read(), ok("y", 1))
                .op(3, 30, 31, "/r", read(), ok("x", 0)));
        assertEquals(new ZnodeCall.Read(), failure.explanation().blocked().get(0).op().call());
    }

    @Test
    void aValueFlippingBackBetweenConcurrentWritesIsNotLinearizable() {
        // Knossos's classic: two concurrent writes, sequential reads that see a, b, a
        assertViolation(created()
                .op(1, 10, 100, "/r", set("a", -1), ok())
                .op(2, 10, 100, "/r", set("b", -1), ok())
                .op(3, 20, 30, "/r", read(), ok("a", 1))
                .op(3, 40, 50, "/r", read(), ok("b", 2))
                .op(3, 60, 70, "/r", read(), ok("a", 1)));
    }

    @Test
    void aFailureThatContradictsTheStateIsNotLinearizable() {
        assertViolation(new Histories().op(1, 0, 1, "/r", create("x"), failed(NODE_EXISTS)));
        assertViolation(created().op(1, 2, 3, "/r", set("y", 0), failed(BAD_VERSION)));
    }

    @Test
    void anOkFromANodeThatNeverExistedIsNotLinearizable() {
        PartitionResult failure = assertViolation(new Histories().op(1, 0, 1, "/r", delete(-1), ok()));
        assertEquals(0, failure.explanation().linearised().size());
        assertEquals(java.util.Set.of(Znode.ABSENT), failure.explanation().statesAfter());
    }

    @Test
    void aWriteRetriedAfterManyLostRepliesIsCheckedWithoutBlowingUp() {
        Histories h = created();
        for (int i = 0; i < 40; i++) {
            h.pending(i, 10 + i, "/r", set("a", -1));
        }
        h.op(99, 100, 101, "/r", read(), ok("a", 17));
        LinearizabilityReport accepted = new LinearizabilityChecker<>(new ZnodeModel(), 100_000).check(h.ops());
        assertEquals(Verdict.OK, accepted.verdict(), accepted::describe);
        h.op(99, 102, 103, "/r", read(), ok("a", 41));
        LinearizabilityReport rejected = new LinearizabilityChecker<>(new ZnodeModel(), 100_000).check(h.ops());
        assertEquals(Verdict.VIOLATION, rejected.verdict(), rejected::describe);
    }

    // ---- budget ----

    @Test
    void aSearchOverBudgetIsUnknownNeverOk() {
        Histories h = created();
        for (int i = 0; i < 12; i++) {
            h.op(i, 10, 100, "/r", set("v" + i, -1), ok());
        }
        h.op(99, 200, 201, "/r", read(), ok("v3", 12));
        LinearizabilityReport tight = new LinearizabilityChecker<>(new ZnodeModel(), 50).check(h.ops());
        assertEquals(Verdict.UNKNOWN, tight.verdict(), tight::describe);
        assertNull(tight.partitions().get(0).explanation());
        assertEquals(50, tight.partitions().get(0).steps());
        assertEquals(Verdict.OK, h.check().verdict());
    }

    @Test
    void aViolationElsewhereOutranksAnUnknownKey() {
        Histories h = created();
        for (int i = 0; i < 12; i++) {
            h.op(i, 10, 100, "/r", set("v" + i, -1), ok());
        }
        h.op(99, 200, 201, "/r", read(), ok("v3", 12));
        h.op(1, 0, 1, "/s", read(), ok("never", 0));
        LinearizabilityReport report = new LinearizabilityChecker<>(new ZnodeModel(), 50).check(h.ops());
        assertEquals(Verdict.VIOLATION, report.verdict());
        assertEquals(2, report.failures().size());
    }
}
