package dev.zkr.apache.conformance;

import dev.zkr.client.CreateMode;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Runs one sequence of {@link Step}s on zkr and on ZooKeeper side by side, under a fresh root {@code /t<N>} on both,
 * and fails at the first step where they disagree: the step's outcome, the watch events each watcher received
 * (after both settled: emptied containers removed, then {@code sync}), the main client's watched paths, or the order
 * of every zxid seen so far. At the end the whole subtree must be equal.
 */
final class Differential {

    private static final AtomicInteger TRIES = new AtomicInteger();

    private final Side zkr;
    private final Side zk;

    private Differential(Side zkr, Side zk) {
        this.zkr = zkr;
        this.zk = zk;
    }

    /**
     * Runs the steps on both backends; throws an AssertionError describing the first difference. Returns the
     * history (one line per step: the step, its outcome and what followed: containers removed, events).
     */
    static List<String> run(Backends backends, List<Step> steps) {
        String root = "/t" + TRIES.incrementAndGet() + "-" + ProcessHandle.current().pid();
        try (Side zkr = new Side(backends.zkrName(), root, backends.zkr());
             Side zk = new Side("zookeeper", root, backends.zooKeeper())) {
            new Differential(zkr, zk).run(steps);
            return List.copyOf(zkr.history);
        }
    }

    private void run(List<Step> steps) {
        Step init = new Step.Create("", new Args.Data(0), CreateMode.PERSISTENT, false);
        agree(-1, init, init.run(zkr, -1), init.run(zk, -1));
        for (int i = 0; i < steps.size(); i++) {
            Step step = steps.get(i);
            agree(i, step, step.run(zkr, i), step.run(zk, i));
            also(i, step, "containers removed", zkr.settle(), zk.settle());
            also(i, step, "events", events(zkr.newEvents(i, step.unorderedEvents())),
                    events(zk.newEvents(i, step.unorderedEvents())));
            List<String> watchingZkr = List.copyOf(zkr.watchedPaths());
            List<String> watchingZk = List.copyOf(zk.watchedPaths());
            if (!watchingZkr.equals(watchingZk)) {
                fail(i, step, "watched paths " + watchingZkr, "watched paths " + watchingZk);
            }
            zxidOrder(i, step);
        }
        String end = "end";
        agree(steps.size(), end, "final tree\n    " + String.join("\n    ", zkr.dump()),
                "final tree\n    " + String.join("\n    ", zk.dump()));
        zxidOrder(steps.size(), end);
        if (System.getenv("CONFORMANCE_VERBOSE") != null) {
            System.out.println(histories());
        }
    }

    /** Events per watcher, only the watchers that got some: {@code w0=[...], w2=[...]}. */
    private static List<String> events(List<List<String>> perWatcher) {
        List<String> out = new ArrayList<>();
        for (int w = 0; w < perWatcher.size(); w++) {
            if (!perWatcher.get(w).isEmpty()) {
                out.add("w" + w + "=" + perWatcher.get(w));
            }
        }
        return out;
    }

    /** Records the step's outcome in both histories; fails if they differ. */
    private void agree(int index, Object step, String a, String b) {
        zkr.history.add(index + " " + step + " -> " + a);
        zk.history.add(index + " " + step + " -> " + b);
        if (!Objects.equals(a, b)) {
            fail(index, step, a, b);
        }
    }

    /** A further check after a step, shown in the histories only when not empty; fails if they differ. */
    private void also(int index, Step step, String label, List<String> a, List<String> b) {
        if (!a.isEmpty()) {
            appendToLast(zkr.history, "; " + label + " " + a);
        }
        if (!b.isEmpty()) {
            appendToLast(zk.history, "; " + label + " " + b);
        }
        if (!a.equals(b)) {
            fail(index, step, label + " " + a, label + " " + b);
        }
    }

    private static void appendToLast(List<String> history, String s) {
        history.set(history.size() - 1, history.get(history.size() - 1) + s);
    }

    private void fail(int index, Object step, String a, String b) {
        throw new AssertionError("step " + index + " " + step + ": backends differ\n"
                + "  " + zkr.name + ": " + a + "\n"
                + "  zookeeper: " + b + "\n" + histories());
    }

    /** Every pair of zxids seen so far must compare the same way on both backends. */
    private void zxidOrder(int index, Object step) {
        List<Long> a = zkr.zxids;
        List<Long> b = zk.zxids;
        if (a.size() != b.size()) {
            throw new AssertionError("step " + index + " " + step + ": " + a.size() + " zxids seen on zkr, " + b.size()
                    + " on zookeeper\n  zkr:       " + zkr.zxidLabels + "\n  zookeeper: " + zk.zxidLabels
                    + "\n" + histories());
        }
        for (int i = 0; i < a.size(); i++) {
            for (int j = 0; j < i; j++) {
                int ca = Long.signum(Long.compare(a.get(j), a.get(i)));
                int cb = Long.signum(Long.compare(b.get(j), b.get(i)));
                if (ca != cb) {
                    throw new AssertionError("step " + index + " " + step + ": zxid order differs\n"
                            + "  zkr:       " + zkr.zxidLabels.get(j) + " " + rel(ca) + " " + zkr.zxidLabels.get(i)
                            + " (" + a.get(j) + " vs " + a.get(i) + ")\n"
                            + "  zookeeper: " + zk.zxidLabels.get(j) + " " + rel(cb) + " " + zk.zxidLabels.get(i)
                            + " (0x" + Long.toHexString(b.get(j)) + " vs 0x" + Long.toHexString(b.get(i)) + ")\n"
                            + histories());
                }
            }
        }
    }

    private static String rel(int sign) {
        return sign < 0 ? "<" : sign > 0 ? ">" : "==";
    }

    private String histories() {
        List<String> lines = new ArrayList<>();
        lines.add("history on " + zkr.name + ":");
        zkr.history.forEach(h -> lines.add("  " + h));
        lines.add("history on zookeeper:");
        zk.history.forEach(h -> lines.add("  " + h));
        return String.join("\n", lines);
    }
}
