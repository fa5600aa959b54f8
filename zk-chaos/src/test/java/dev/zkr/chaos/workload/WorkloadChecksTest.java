package dev.zkr.chaos.workload;

import dev.zkr.chaos.history.Op;
import dev.zkr.check.LinearizabilityChecker;
import dev.zkr.check.Operation;
import dev.zkr.check.Verdict;
import dev.zkr.check.ZnodeModel;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Each workload check catches the bug it claims to, on hand-built histories, and passes a valid one. */
class WorkloadChecksTest {

    private static Op op(int p, String f, String key, String arg, long invoke, long complete, Op.Status status,
                         String result, String error) {
        return new Op(p, f, key, arg, invoke, complete, status, result, error);
    }

    private static Op add(String element, Op.Status status, String error) {
        return op(0, "add", SetWorkload.ROOT, element, 0, 1, status, status == Op.Status.OK ? element : null, error);
    }

    @Test
    void setAcceptsAValidEnd() {
        List<Op> adds = List.of(add("a", Op.Status.OK, null), add("b", Op.Status.INFO, "ConnectionLoss"),
                add("c", Op.Status.INFO, "Timeout"));
        assertEquals(List.of(), SetWorkload.check(adds, Map.of(1, Set.of("a", "b"), 2, Set.of("a", "b"))));
    }

    @Test
    void setCatchesALostAcknowledgedElementAFailedOnePresentAStrangerAndDisagreement() {
        List<Op> adds = List.of(add("a", Op.Status.OK, null), add("b", Op.Status.FAIL, "NoNode"),
                add("c", Op.Status.FAIL, "NodeExists"));
        List<String> found = SetWorkload.check(adds, Map.of(1, Set.of("a", "b"), 2, Set.of("x")));
        assertTrue(found.stream().anyMatch(a -> a.contains("acknowledged element a lost on server 2")), found::toString);
        assertTrue(found.stream().anyMatch(a -> a.contains("element b present although")), found::toString);
        assertTrue(found.stream().anyMatch(a -> a.contains("no one added on server 2: [x]")), found::toString);
        assertTrue(found.stream().anyMatch(a -> a.contains("server 2 disagrees")), found::toString);
        assertTrue(found.stream().anyMatch(a -> a.contains("applied twice")), found::toString);
    }

    private static Op create(String tag, Op.Status status, String name) {
        return op(0, "create-seq", SequentialWorkload.ROOT, tag, 0, 1, status, name, status == Op.Status.OK ? null
                : status == Op.Status.FAIL ? "NoNode" : "ConnectionLoss");
    }

    private static Op delete(String name, Op.Status status) {
        return op(0, "delete", SequentialWorkload.ROOT + "/" + name, "t", 2, 3, status, null, null);
    }

    @Test
    void sequentialAcceptsAValidEnd() {
        List<Op> ops = List.of(create("t1", Op.Status.OK, "n-0000000000"), create("t2", Op.Status.OK, "n-0000000001"),
                delete("n-0000000001", Op.Status.OK), create("t3", Op.Status.INFO, null));
        Map<String, String> end = Map.of("n-0000000000", "t1", "n-0000000002", "t3");
        assertEquals(List.of(), SequentialWorkload.check(ops, Map.of(1, end, 2, end)));
    }

    @Test
    void sequentialCatchesAReusedNameADoubleApplyALostNodeAndAResurrectedDelete() {
        List<Op> ops = List.of(create("t1", Op.Status.OK, "n-0000000000"), create("t2", Op.Status.OK, "n-0000000000"),
                create("t3", Op.Status.OK, "n-0000000003"), delete("n-0000000003", Op.Status.OK),
                create("t4", Op.Status.INFO, null), create("t5", Op.Status.FAIL, null));
        Map<String, String> end = Map.of("n-0000000000", "t1", "n-0000000003", "t3", "n-0000000004", "t4",
                "n-0000000005", "t4", "n-0000000006", "t5");
        List<String> found = SequentialWorkload.check(ops, Map.of(1, end));
        assertTrue(found.stream().anyMatch(a -> a.contains("given twice")), found::toString);
        assertTrue(found.stream().anyMatch(a -> a.contains("tag t4 in two nodes")), found::toString);
        assertTrue(found.stream().anyMatch(a -> a.contains("after an acknowledged delete")), found::toString);
        assertTrue(found.stream().anyMatch(a -> a.contains("from a create that failed")), found::toString);
        List<String> lost = SequentialWorkload.check(ops.subList(0, 1), Map.of(1, Map.of()));
        assertTrue(lost.stream().anyMatch(a -> a.contains("acknowledged node n-0000000000 (tag t1) lost")),
                lost::toString);
    }

    private static Verdict registerVerdict(Op... ops) {
        List<Operation> converted = java.util.Arrays.stream(ops).map(RegisterWorkload::toOperation).toList();
        return new LinearizabilityChecker<>(new ZnodeModel()).check(converted).verdict();
    }

    private static final String K = RegisterWorkload.ROOT + "/k0";

    @Test
    void registerHistoriesAreConvertedSoThatTheCheckerJudgesThem() {
        Op created = op(0, "create", K, "a", 0, 10, Op.Status.OK, "a@0", null);
        Op written = op(1, "write", K, "b", 20, 30, Op.Status.OK, "b@1", null);
        Op freshRead = op(2, "read", K, null, 40, 50, Op.Status.OK, "b@1", null);
        Op staleRead = op(2, "read", K, null, 40, 50, Op.Status.OK, "a@0", null);
        Op lostCas = op(3, "cas", K, "c@1", 35, 36, Op.Status.INFO, null, "ConnectionLoss");
        Op casLater = op(1, "cas", K, "d@1", 60, 70, Op.Status.FAIL, null, "BadVersion");
        assertEquals(Verdict.OK, registerVerdict(created, written, freshRead));
        assertEquals(Verdict.VIOLATION, registerVerdict(created, written, staleRead),
                "a read after an acknowledged write returns the older value");
        assertEquals(Verdict.OK, registerVerdict(created, written, lostCas, casLater),
                "the lost cas may have taken effect: version 2 explains BadVersion at 1");
        Op readC = op(2, "read", K, null, 80, 90, Op.Status.OK, "c@2", null);
        assertEquals(Verdict.OK, registerVerdict(created, written, lostCas, readC),
                "an indeterminate cas seen later took effect");
        Op readNever = op(2, "read", K, null, 80, 90, Op.Status.OK, "z@2", null);
        assertEquals(Verdict.VIOLATION, registerVerdict(created, written, lostCas, readNever),
                "a value no one wrote");
    }
}
