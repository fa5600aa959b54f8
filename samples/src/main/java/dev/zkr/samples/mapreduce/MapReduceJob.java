package dev.zkr.samples.mapreduce;

import dev.zkr.client.ZkClient;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

/**
 * Runs a word-count job with workers and master candidates in this JVM, each with its own client and session, and
 * checks the result against a single-threaded count. The coordinator's API: {@link MapReduceMain} and the tests call
 * {@link #run}.
 */
public final class MapReduceJob {

    private MapReduceJob() {
    }

    /** Runs the job on the cluster; prints progress to {@code out} (null: silent). */
    public static JobResult run(JobOptions options, Cluster cluster, PrintStream out) {
        return run(options, cluster, out, id -> { }, (id, token) -> { });
    }

    /**
     * Test seam: as {@link #run(JobOptions, Cluster, PrintStream)}, with {@code beforeBarrier} called in each worker's
     * thread (with its id) just before it enters the shuffle barrier (see zk-cli's MapReduceInspectionTest).
     */
    static JobResult run(JobOptions options, Cluster cluster, PrintStream out, Consumer<String> beforeBarrier) {
        return run(options, cluster, out, beforeBarrier, (id, token) -> { });
    }

    /**
     * Test seams: as {@link #run(JobOptions, Cluster, PrintStream, Consumer)}, with {@code insideCommit} also called
     * in each worker's thread (with its id and fencing token) while it holds the output commit lock, its part file
     * renamed into place and the manifest not yet updated (see zk-cli's MapReduceInspectionTest).
     */
    static JobResult run(JobOptions options, Cluster cluster, PrintStream out, Consumer<String> beforeBarrier,
                         BiConsumer<String, Long> insideCommit) {
        Console console = new Console(out);
        Layout layout = new Layout(options.root());
        Path outputDir = outputDir(options);
        JobOutput.prepare(outputDir);
        Faults faults = new Faults(options.killWorker(), options.killMaster(), options.killServer(), beforeBarrier,
                insideCommit);
        List<Throwable> failures = new CopyOnWriteArrayList<>();
        ZkClient admin = cluster.newClient("driver");
        try {
            Nodes.deleteTree(admin, layout.root());
            console.event("%d workers and %d master candidates on %s; output in %s", options.workers(),
                    options.masters(), cluster.description(), outputDir);
            List<Thread> threads = new ArrayList<>();
            for (int i = 1; i <= options.workers(); i++) {
                String id = "worker-" + i;
                Worker w = new Worker(id, cluster.newClient(id), layout, outputDir, cluster, faults, console,
                        failures);
                threads.add(start(w, id));
            }
            for (int i = 1; i <= options.masters(); i++) {
                String id = "master-" + i;
                MasterCandidate m = new MasterCandidate(id, cluster.newClient(id), layout, options, cluster, faults,
                        console, failures);
                awaitQueued(m, id);
                threads.add(start(m, id));
            }
            long deadline = System.nanoTime() + options.timeout().toNanos();
            for (Thread t : threads) {
                long left = Math.max(1, (deadline - System.nanoTime()) / 1_000_000);
                t.join(left);
            }
            boolean finished = threads.stream().noneMatch(Thread::isAlive);
            return check(options, cluster, layout, outputDir, admin, faults, console, failures, finished);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        } finally {
            admin.close();
        }
    }

    private static Path outputDir(JobOptions options) {
        if (options.outputDir() != null) {
            return options.outputDir();
        }
        try {
            return Files.createTempDirectory("zkr-mapreduce-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Thread start(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        t.start();
        return t;
    }

    private static void awaitQueued(MasterCandidate m, String id) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (!m.queued()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(id + " did not join the election in time");
            }
            Thread.sleep(5); // polling the election's children with a deadline
        }
    }

    /**
     * Reads the result from the output directory (the part files the manifest lists) and compares it with the
     * reference count; the phases' durations and masters come from the znodes.
     */
    private static JobResult check(JobOptions options, Cluster cluster, Layout layout, Path outputDir,
                                   ZkClient admin, Faults faults, Console console, List<Throwable> failures,
                                   boolean finished) {
        Map<Phase, Long> millis = new EnumMap<>(Phase.class);
        Map<Phase, List<String>> masters = new EnumMap<>(Phase.class);
        long redone = 0;
        int barrierForms = 0;
        String state = Nodes.readOrNull(admin, layout.state());
        Map<String, Long> counts = new HashMap<>();
        String problem = null;
        if (!finished || !Phase.DONE.name().equals(state)) {
            problem = "the job did not finish (phase " + state + ", " + failures.size() + " failures)";
            if (state != null && Phase.valueOf(state).hasTasks()) {
                describeQueue(admin, layout, Phase.valueOf(state), console);
            }
        } else {
            JobSpec job = JobSpec.read(admin, layout);
            for (Phase p : List.of(Phase.SPLIT, Phase.MAP, Phase.SHUFFLE, Phase.REDUCE)) {
                Map<String, String> t = Nodes.props(Nodes.readOrNull(admin, layout.timeline(p)));
                millis.put(p, Long.parseLong(t.get("end")) - Long.parseLong(t.get("start")));
                masters.put(p, List.of(t.get("masters").split(",")));
                if (p.hasTasks()) {
                    long claimed = counter(admin, layout.counter(p, "claimed"));
                    redone += Math.max(0, claimed - job.tasks(p));
                }
            }
            barrierForms = BarrierSpec.decode(Nodes.utf8(Nodes.read(admin, layout.barrierSpec()))).attempt() + 1;
            Manifest manifest = JobOutput.readManifest(outputDir);
            problem = manifestProblem(manifest, outputDir, job.reducers());
            for (int p : manifest.partitions().keySet()) {
                for (Runs.Entry e : Runs.decode(JobOutput.readPart(outputDir, p))) {
                    if (Runs.partition(e.word(), job.reducers()) != p || counts.put(e.word(), e.count()) != null) {
                        problem = "word '" + e.word() + "' is in the wrong partition or in two";
                    }
                }
            }
            console.plain("output %s: %d part files in _MANIFEST, last written with commit lock fencing token %d",
                    outputDir, manifest.partitions().size(), manifest.token());
        }
        Map<String, Long> reference = Corpus.count(Corpus.generate(options.seed(), options.inputBytes()));
        long words = counts.values().stream().mapToLong(Long::longValue).sum();
        long refWords = reference.values().stream().mapToLong(Long::longValue).sum();
        if (problem == null && !counts.equals(reference)) {
            problem = differences(counts, reference);
        }
        String verdict = problem == null
                ? String.format("VERDICT: correct (%d words, %d distinct)", words, counts.size())
                : String.format("VERDICT: WRONG: %s (job: %d words, %d distinct; reference: %d words, %d distinct)",
                        problem, words, counts.size(), refWords, reference.size());
        ServerKillReport serverKill = faults.serverKillReport();
        if (serverKill != null) {
            console.plain("server kill: server %d (id %d, %s) of %d servers; writes paused %.2f s; %s",
                    serverKill.index(), serverKill.serverId(), serverKill.role().label(), serverKill.servers(),
                    serverKill.pauseMillis() / 1000.0, cluster.disconnects());
            console.plain("ensemble at the end (the killed server restarted): %s", cluster.roles());
        }
        console.plain("checked against a single-threaded count of the same text");
        console.plain("%s", verdict);
        return new JobResult(problem == null, verdict, words, counts.size(), millis, masters, redone, barrierForms,
                faults.workerKilled(), faults.masterKilled(), serverKill, outputDir, console.lines());
    }

    /** Null if the manifest lists every partition with its part file's size; else what is wrong. */
    private static String manifestProblem(Manifest manifest, Path dir, int reducers) {
        for (int p = 0; p < reducers; p++) {
            Manifest.Part part = manifest.partitions().get(p);
            if (part == null) {
                return "partition " + p + " is not in the manifest (committed: " + manifest.partitions().keySet()
                        + ")";
            }
            long size;
            try {
                size = Files.size(JobOutput.part(dir, p));
            } catch (IOException e) {
                return "part file of partition " + p + " unreadable: " + e;
            }
            if (size != part.bytes()) {
                return "part file of partition " + p + " has " + size + " bytes, the manifest says " + part.bytes();
            }
        }
        return null;
    }

    /** For a job that did not finish: what its phase's queue holds, and who owns each claim. */
    private static void describeQueue(ZkClient admin, Layout layout, Phase phase, Console console) {
        Map<Long, String> workers = new HashMap<>();
        for (String w : Nodes.retrying(() -> admin.getChildren(layout.workers()))) {
            dev.zkr.client.Stat st = Nodes.retrying(() -> admin.exists(layout.workers() + "/" + w));
            if (st != null) {
                workers.put(st.ephemeralOwner(), w);
            }
        }
        String queue = layout.queue(phase);
        List<String> children = Nodes.retrying(() -> admin.getChildren(queue));
        console.plain("queue %s holds %d nodes; done markers %d", queue, children.size(),
                Nodes.childCount(admin, layout.done(phase)));
        for (String c : children) {
            dev.zkr.client.Stat st = Nodes.retrying(() -> admin.exists(queue + "/" + c));
            if (st != null && st.ephemeralOwner() != 0) {
                console.plain("  %s: claim of session 0x%x (%s), czxid 0x%x", c, st.ephemeralOwner(),
                        workers.getOrDefault(st.ephemeralOwner(), "not a live worker"), st.czxid());
            } else if (st != null) {
                console.plain("  %s: item, czxid 0x%x", c, st.czxid());
            }
        }
    }

    private static long counter(ZkClient client, String path) {
        return dev.zkr.recipes.Recipes.using(client).counter(path).get();
    }

    private static String differences(Map<String, Long> got, Map<String, Long> want) {
        int missing = 0;
        int extra = 0;
        int wrong = 0;
        String example = null;
        for (Map.Entry<String, Long> e : want.entrySet()) {
            Long g = got.get(e.getKey());
            if (g == null) {
                missing++;
            } else if (!g.equals(e.getValue())) {
                wrong++;
                if (example == null) {
                    example = "'" + e.getKey() + "' counted " + g + ", expected " + e.getValue();
                }
            }
        }
        for (String w : got.keySet()) {
            if (!want.containsKey(w)) {
                extra++;
            }
        }
        return missing + " words missing, " + extra + " extra, " + wrong + " miscounted"
                + (example == null ? "" : " (e.g. " + example + ")");
    }
}
