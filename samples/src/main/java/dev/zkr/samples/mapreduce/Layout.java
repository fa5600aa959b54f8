package dev.zkr.samples.mapreduce;

import dev.zkr.client.ZkPaths;

/** Where the job keeps its state: every path under one root znode. */
final class Layout {

    private final String root;

    Layout(String root) {
        this.root = ZkPaths.validate(root);
    }

    String root() {
        return root;
    }

    private String p(String rel) {
        return root + "/" + rel;
    }

    /** The job's parameters (written once by the first master). */
    String job() {
        return p("job");
    }

    /** The current {@link Phase}. */
    String state() {
        return p("state");
    }

    /** Start/end of each phase, one child per phase. */
    String timeline() {
        return p("timeline");
    }

    String timeline(Phase phase) {
        return p("timeline/" + phase.label());
    }

    String election() {
        return p("election");
    }

    String workers() {
        return p("workers");
    }

    String input(int split) {
        return p("input/split-" + num(split));
    }

    String queue(Phase phase) {
        return p("queue/" + phase.label());
    }

    /** Directory of done markers of a phase: one child per finished task. */
    String done(Phase phase) {
        return p("done/" + phase.label());
    }

    String doneMarker(Phase phase, String task) {
        return done(phase) + "/" + task;
    }

    /** Output of map task {@code m} for reducer partition {@code part}. */
    String mapOut(int m, int part) {
        return p("map-out/m-" + num(m) + "/p-" + num(part));
    }

    String shuffleOut(int part) {
        return p("shuffle-out/p-" + num(part));
    }

    String reduceOut(int part) {
        return p("reduce-out/p-" + num(part));
    }

    String counter(Phase phase, String what) {
        return p("counters/" + phase.label() + "-" + what);
    }

    /** The shuffle barrier's current attempt and parties (written by the master). */
    String barrierSpec() {
        return p("barrier-spec");
    }

    String barrier(int attempt) {
        return p("barrier/shuffle-" + attempt);
    }

    /**
     * The lock under which reducers commit their partitions into the job's output directory (part file rename and
     * manifest update); a direct child of the root, so {@code zkr locks <root>} finds it.
     */
    String commitLock() {
        return p("commit-lock");
    }

    /** Record of a {@code --kill-server} fault: the master's first write after the kill. */
    String serverKill() {
        return p("faults/server-kill");
    }

    /** The final summary (written by the master at the end). */
    String result() {
        return p("result");
    }

    static String num(int i) {
        return String.format("%04d", i);
    }

    static String taskName(Phase phase, int i) {
        return phase.label() + "-" + num(i);
    }

    static int taskIndex(String task) {
        return Integer.parseInt(task.substring(task.lastIndexOf('-') + 1));
    }
}
