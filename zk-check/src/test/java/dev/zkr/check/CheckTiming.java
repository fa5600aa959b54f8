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
        measure(checker, "2000 ops, 10 keys, 5 clients", LinearizabilityScaleTest.TEN_KEYS);
        measure(checker, "2000 ops,  1 key,  5 clients", LinearizabilityScaleTest.ONE_KEY);
        measure(checker, "2000 ops,  1 key, 20 clients", new RandomHistory.Shape(2_000, 1, 20, 120, 0.02));
        List<Operation> stale = new Histories()
                .op(9, 0, 1, "/r", Histories.create("x"), Histories.ok("x", 0))
                .op(1, 10, 20, "/r", Histories.set("y", -1), Histories.ok("y", 1))
                .op(2, 30, 40, "/r", Histories.read(), Histories.ok("x", 0)).ops();
        System.out.println("example report:\n" + checker.check(stale).describe());
    }

    private static void measure(LinearizabilityChecker<Znode> checker, String label, RandomHistory.Shape shape) {
        int runs = 10;
        long worst = 0;
        long total = 0;
        long steps = 0;
        for (int seed = 1; seed <= runs; seed++) {
            List<Operation> history = RandomHistory.generate(seed, shape);
            long start = System.nanoTime();
            LinearizabilityReport report = checker.check(history);
            long micros = (System.nanoTime() - start) / 1_000;
            if (report.verdict() != Verdict.OK) {
                throw new AssertionError(report.describe());
            }
            worst = Math.max(worst, micros);
            total += micros;
            steps += report.steps();
        }
        System.out.printf("%s: mean %.1f ms, worst %.1f ms, %d steps per history%n",
                label, total / 1000.0 / runs, worst / 1000.0, steps / runs);
    }
}
