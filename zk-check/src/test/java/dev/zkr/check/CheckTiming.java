package dev.zkr.check;

import java.util.List;

/**
 * Prints how long the linearizability checker takes on simulator-sized histories (not a test: timing stays out of
 * unit tests). Run after {@code mvn -pl zk-check test-compile}:
 * {@code java -cp zk-check/target/classes:zk-check/target/test-classes dev.zkr.check.CheckTiming}
 */
public final class CheckTiming {

    private CheckTiming() {
    }

    public static void main(String[] args) {
        LinearizabilityChecker<Znode> checker = new LinearizabilityChecker<>(new ZnodeModel());
        for (int warmup = 0; warmup < 20; warmup++) {
            checker.check(RandomHistory.generate(1000 + warmup, LinearizabilityScaleTest.TEN_KEYS));
        }
        measure(checker, "2000 ops, 10 keys, 5 clients", new RandomHistory.Shape(2_000, 10, 5, 30, 0));
        measure(checker, "2000 ops,  1 key,  5 clients", LinearizabilityScaleTest.ONE_KEY);
        measure(checker, "2000 ops,  1 key, 20 clients", new RandomHistory.Shape(2_000, 1, 20, 120, 0));
        measure(checker, "2000 ops, 10 keys, 5 clients, 2% indeterminate", new RandomHistory.Shape(2_000, 10, 5, 30, 0.02));
        measure(checker, "2000 ops, 10 keys, 5 clients, 5% indeterminate", new RandomHistory.Shape(2_000, 10, 5, 30, 0.05));
        measure(checker, " 200 ops,  1 key,  5 clients, 5% indeterminate", new RandomHistory.Shape(200, 1, 5, 30, 0.05));
        measure(checker, "2000 ops,  1 key,  5 clients, 1% indeterminate", new RandomHistory.Shape(2_000, 1, 5, 30, 0.01));
        measure(checker, "2000 ops,  1 key,  5 clients, 2% indeterminate", new RandomHistory.Shape(2_000, 1, 5, 30, 0.02));
        List<Operation> stale = new Histories()
                .op(9, 0, 1, "/r", Histories.create("x"), Histories.ok("x", 0))
                .op(1, 10, 20, "/r", Histories.set("y", -1), Histories.ok("y", 1))
                .op(2, 30, 40, "/r", Histories.read(), Histories.ok("x", 0)).ops();
        System.out.println("example report:\n" + checker.check(stale).describe());
    }

    private static void measure(LinearizabilityChecker<Znode> checker, String label, RandomHistory.Shape shape) {
        int runs = 10;
        long[] micros = new long[2];
        long worst = 0;
        long steps = 0;
        int unknown = 0;
        for (int seed = 1; seed <= runs; seed++) {
            List<Operation> history = RandomHistory.generate(seed, shape);
            long start = System.nanoTime();
            LinearizabilityReport report = checker.check(history);
            long took = (System.nanoTime() - start) / 1_000;
            unknown += expect(Verdict.OK, report);
            worst = Math.max(worst, took);
            micros[0] += took;
            steps += report.steps();
            start = System.nanoTime();
            unknown += expect(Verdict.VIOLATION, checker.check(RandomHistory.withForgedRead(history, seed)));
            micros[1] += (System.nanoTime() - start) / 1_000;
        }
        System.out.printf("%s: mean %.1f ms (worst %.1f ms, %d steps); with a forged read: mean %.1f ms; "
                + "unknown %d of %d%n", label, micros[0] / 1000.0 / runs, worst / 1000.0, steps / runs,
                micros[1] / 1000.0 / runs, unknown, 2 * runs);
    }

    /** 1 if the search ran out of budget, 0 if it found the expected verdict; an error on a wrong verdict. */
    private static int expect(Verdict verdict, LinearizabilityReport report) {
        if (report.verdict() == Verdict.UNKNOWN) {
            return 1;
        }
        if (report.verdict() != verdict) {
            throw new AssertionError(report.describe());
        }
        return 0;
    }
}
