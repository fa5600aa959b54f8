package dev.zkr.samples.mapreduce;

import dev.zkr.client.NodeData;
import dev.zkr.client.Watcher;
import dev.zkr.client.ZkClient;
import dev.zkr.client.ZkException;
import dev.zkr.recipes.AcknowledgedQueue;
import dev.zkr.recipes.LeaderLatch;
import dev.zkr.recipes.Recipes;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * The elected master's work. It keeps no state of its own: everything it decides goes into znodes first (job
 * parameters, input, queues, barrier spec, phase, timeline), so a master that takes over reads where the job is
 * and goes on from there. Completion of a phase is judged by the done markers, one per task, which workers create
 * after writing a task's output.
 */
final class Master {

    /** Leadership was lost (connection suspended or session gone): stop deciding, compete again. */
    static final class NotLeader extends RuntimeException {
        NotLeader() {
            super("leadership lost", null, false, false);
        }
    }

    private final String id;
    private final ZkClient client;
    private final Layout layout;
    private final JobOptions options;
    private final Cluster cluster;
    private final Faults faults;
    private final Console console;
    private final LeaderLatch latch;
    private final Recipes recipes;
    private final Semaphore wake = new Semaphore(0);
    private final Watcher wakeUp = e -> wake.release();

    Master(String id, ZkClient client, Layout layout, JobOptions options, Cluster cluster, Faults faults,
           Console console, LeaderLatch latch) {
        this.id = id;
        this.client = client;
        this.layout = layout;
        this.options = options;
        this.cluster = cluster;
        this.faults = faults;
        this.console = console;
        this.latch = latch;
        this.recipes = Recipes.using(client);
    }

    /** Runs the job from wherever it is to DONE. */
    void run() {
        String state = Nodes.readOrNull(client, layout.state());
        Phase phase = state == null ? Phase.SPLIT : Phase.valueOf(state);
        if (phase == Phase.DONE) {
            return; // elected after the job finished: nothing to do
        }
        if (state == null) {
            console.event("%s is master (fencing token %d): starting the job", id, latch.fencingToken());
        } else {
            JobSpec job = JobSpec.read(client, layout);
            int done = phase.hasTasks() ? Nodes.childCount(client, layout.done(phase)) : 0;
            console.event("%s is master (fencing token %d): takes over at phase %s (%d/%d tasks done)", id,
                    latch.fencingToken(), phase.label(), done, phase.hasTasks() ? job.tasks(phase) : 0);
            joinTimeline(phase);
        }
        while (phase != Phase.DONE) {
            checkLeader();
            switch (phase) {
                case SPLIT -> split();
                case MAP -> {
                    awaitTasks(Phase.MAP);
                    next(Phase.MAP, Phase.SHUFFLE);
                }
                case SHUFFLE -> {
                    awaitTasks(Phase.SHUFFLE);
                    next(Phase.SHUFFLE, Phase.REDUCE);
                }
                case REDUCE -> {
                    awaitTasks(Phase.REDUCE);
                    finish();
                }
                default -> throw new IllegalStateException("phase " + phase);
            }
            phase = Phase.valueOf(Nodes.read(client, layout.state()));
        }
    }

    /** Writes the job, the input and the map tasks, then opens the map phase. Safe to repeat after a crash. */
    private void split() {
        long now = System.currentTimeMillis();
        JobSpec job = new JobSpec(options.seed(), options.inputBytes(), options.mapTasks(), options.reducers(),
                options.workers(), now);
        if (!Nodes.createIfAbsent(client, layout.job(), job.encode())) {
            job = JobSpec.read(client, layout); // a previous master got this far
        }
        Nodes.put(client, layout.state(), Nodes.utf8(Phase.SPLIT.name()));
        startTimeline(Phase.SPLIT, job.startedAtMillis());
        String text = Corpus.generate(job.seed(), job.inputBytes());
        List<String> splits = Corpus.split(text, job.mapTasks());
        for (int i = 0; i < splits.size(); i++) {
            Nodes.writeBlob(client, layout.input(i), Nodes.utf8(splits.get(i)));
        }
        for (Phase p : List.of(Phase.MAP, Phase.SHUFFLE, Phase.REDUCE)) {
            Nodes.createIfAbsent(client, layout.done(p), new byte[0]);
        }
        enqueue(Phase.MAP, job.mapTasks());
        endTimeline(Phase.SPLIT);
        console.event("%-8s %.1f MiB of text (seed %d) in %d input splits -> %d map tasks, %d reducers", "split",
                text.length() / 1048576.0, job.seed(), job.mapTasks(), job.mapTasks(), job.reducers());
        startTimeline(Phase.MAP, System.currentTimeMillis());
        Nodes.put(client, layout.state(), Nodes.utf8(Phase.MAP.name()));
    }

    private void enqueue(Phase phase, int tasks) {
        try (AcknowledgedQueue<String> queue = recipes.queue(layout.queue(phase)).serializer(Worker.TEXT)
                .buildAcknowledged()) {
            for (int i = 0; i < tasks; i++) {
                queue.offer(Layout.taskName(phase, i));
            }
        }
    }

    /** Waits until every task of the phase is done; meanwhile keeps the shuffle barrier passable. */
    private void awaitTasks(Phase phase) {
        int tasks = JobSpec.read(client, layout).tasks(phase);
        while (true) {
            checkLeader();
            int done = Nodes.retrying(() -> client.getChildren(layout.done(phase), wakeUp)).size();
            ServerKill.Role victim = faults.killServer(phase, done, tasks);
            if (victim != null) {
                killServer(victim, phase, done, tasks);
            }
            if (faults.killMaster(phase, done, tasks)) {
                console.event("! %s killed in the middle of %s (%d/%d tasks done)", id, phase.label(), done, tasks);
                cluster.crash(client);
                throw new Killed(id);
            }
            if (done >= tasks) {
                return;
            }
            if (phase == Phase.SHUFFLE) {
                keepBarrierPassable();
            }
            try {
                wake.tryAcquire(250, TimeUnit.MILLISECONDS);
                wake.drainPermits();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new ZkException.Interrupted(layout.root(), "interrupted");
            }
        }
    }

    /**
     * Kills a server of the ensemble (--kill-server), measures how long writes pause, then starts it again. The
     * pause is the time from the kill to the first acknowledged write of this master after it: the record of the
     * fault, retried after ConnectionLoss until a server (a new leader, for a killed leader) accepts it. Nothing
     * else waits: every participant keeps its session and carries on through the failover.
     */
    private void killServer(ServerKill.Role role, Phase phase, int done, int tasks) {
        Cluster.KilledServer k = cluster.killServer(role);
        console.event("! server %d (id %d, %s) killed in the middle of %s (%d/%d tasks done): %d of %d servers run",
                k.index(), k.serverId(), role.label(), phase.label(), done, tasks, k.servers() - 1, k.servers());
        Map<String, Object> record = new LinkedHashMap<>();
        record.put("server", k.index());
        record.put("id", k.serverId());
        record.put("role", role.label());
        record.put("phase", phase.label());
        record.put("by", id);
        Nodes.createIfAbsent(client, layout.serverKill(), Nodes.utf8(Nodes.props(record)));
        long pauseMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - k.atNanos());
        console.event("  writes paused %.2f s (from the kill to %s's first acknowledged write); ensemble: %s",
                pauseMillis / 1000.0, id, cluster.roles());
        cluster.restartServer(k.index());
        console.event("  server %d (id %d) restarted on its data directory and ports", k.index(), k.serverId());
        faults.serverKilled(new ServerKillReport(k.index(), k.serverId(), role, k.servers(), pauseMillis, true));
    }

    /**
     * The shuffle barrier's parties are the workers alive when the map phase ended. If one of them dies before it
     * arrives, the others would wait for it forever; so while someone waits, no ready node exists and a counted
     * party is gone from the group, the master re-forms the barrier: a fresh path (next attempt) whose parties are
     * the counted workers still alive. Waiting workers are woken by the spec change and move over.
     */
    private void keepBarrierPassable() {
        NodeData specNode = Nodes.retrying(() -> client.getData(layout.barrierSpec()));
        BarrierSpec spec = BarrierSpec.decode(specNode.data());
        String path = layout.barrier(spec.attempt());
        List<String> present;
        try {
            present = new ArrayList<>(Nodes.retrying(() -> client.getChildren(path, wakeUp)));
        } catch (ZkException.NoNode e) {
            Nodes.retrying(() -> client.exists(path, wakeUp));
            return; // nobody has arrived yet
        }
        if (present.contains("ready") || present.isEmpty()) {
            return; // open already, or nobody is waiting
        }
        List<String> live = Nodes.retrying(() -> client.getChildren(layout.workers(), wakeUp));
        List<String> still = spec.members().stream().filter(live::contains).toList();
        if (still.size() == spec.members().size() || still.isEmpty()) {
            return;
        }
        List<String> gone = spec.members().stream().filter(m -> !live.contains(m)).toList();
        try {
            byte[] next = new BarrierSpec(spec.attempt() + 1, still).encode();
            Nodes.retrying(() -> client.setData(layout.barrierSpec(), next, specNode.stat().version()));
            console.event("  shuffle barrier: %s died before arriving; re-formed for %d parties (attempt %d)",
                    String.join(", ", gone), still.size(), spec.attempt() + 1);
        } catch (ZkException.BadVersion e) {
            // changed meanwhile: looked at again on the next round
        }
    }

    /** Ends a phase: its progress line, the next phase's tasks, (for shuffle) the barrier, then the phase switch. */
    private void next(Phase phase, Phase following) {
        endTimeline(phase);
        progress(phase);
        JobSpec job = JobSpec.read(client, layout);
        enqueue(following, job.tasks(following));
        if (following == Phase.SHUFFLE) {
            List<String> live = new ArrayList<>(Nodes.retrying(() -> client.getChildren(layout.workers())));
            live.sort(Comparator.naturalOrder());
            Nodes.put(client, layout.barrierSpec(), new BarrierSpec(0, live).encode());
        }
        startTimeline(following, System.currentTimeMillis());
        checkLeader();
        Nodes.put(client, layout.state(), Nodes.utf8(following.name()));
    }

    private void progress(Phase phase) {
        JobSpec job = JobSpec.read(client, layout);
        int tasks = job.tasks(phase);
        int done = Nodes.childCount(client, layout.done(phase));
        long claimed = recipes.counter(layout.counter(phase, "claimed")).get();
        int alive = Nodes.childCount(client, layout.workers());
        console.event("%-8s %3d/%d tasks done   workers alive %d/%d   claims %d (%d redone)", phase.label(), done,
                tasks, alive, job.workers(), claimed, Math.max(0, claimed - tasks));
    }

    /** Collects the reduce outputs, writes the result and the timeline, and marks the job DONE. */
    private void finish() {
        endTimeline(Phase.REDUCE);
        progress(Phase.REDUCE);
        JobSpec job = JobSpec.read(client, layout);
        Map<String, Long> counts = new HashMap<>();
        for (int p = 0; p < job.reducers(); p++) {
            Runs.addTo(counts, Runs.decode(Nodes.readBlob(client, layout.reduceOut(p))));
        }
        long words = counts.values().stream().mapToLong(Long::longValue).sum();
        List<Map.Entry<String, Long>> top = counts.entrySet().stream()
                .sorted(Map.Entry.<String, Long>comparingByValue().reversed().thenComparing(Map.Entry.comparingByKey()))
                .limit(5).toList();
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("words", words);
        result.put("distinct", counts.size());
        result.put("top", String.join(",", top.stream().map(e -> e.getKey() + ":" + e.getValue()).toList()));
        result.put("master", id);
        checkLeader();
        Nodes.put(client, layout.result(), Nodes.utf8(Nodes.props(result)));
        printTimeline(job);
        console.plain("result (%s): %d words, %d distinct; top: %s", layout.result(), words, counts.size(),
                result.get("top"));
        Nodes.put(client, layout.state(), Nodes.utf8(Phase.DONE.name()));
    }

    private void printTimeline(JobSpec job) {
        console.plain("phase timeline (%s):", layout.timeline());
        long last = job.startedAtMillis();
        for (Phase p : List.of(Phase.SPLIT, Phase.MAP, Phase.SHUFFLE, Phase.REDUCE)) {
            Map<String, String> t = Nodes.props(Nodes.read(client, layout.timeline(p)));
            long start = Long.parseLong(t.get("start"));
            long end = Long.parseLong(t.get("end"));
            last = Math.max(last, end);
            console.plain("  %-8s %7.2f s   by %s", p.label(), (end - start) / 1000.0, t.get("masters"));
        }
        console.plain("  %-8s %7.2f s", "total", (last - job.startedAtMillis()) / 1000.0);
    }

    private void startTimeline(Phase phase, long startMillis) {
        String path = layout.timeline(phase);
        String old = Nodes.readOrNull(client, path);
        if (old == null) {
            Nodes.put(client, path, Nodes.utf8("start=" + startMillis + "\nmasters=" + id + "\n"));
        } else {
            joinTimeline(phase);
        }
    }

    /** Notes in the phase's timeline that this master worked on it (after a takeover). */
    private void joinTimeline(Phase phase) {
        String path = layout.timeline(phase);
        String old = Nodes.readOrNull(client, path);
        if (old == null) {
            startTimeline(phase, System.currentTimeMillis());
            return;
        }
        Map<String, String> t = Nodes.props(old);
        List<String> masters = new ArrayList<>(List.of(t.get("masters").split(",")));
        if (!masters.contains(id)) {
            masters.add(id);
            t.put("masters", String.join(",", masters));
            Nodes.put(client, path, Nodes.utf8(Nodes.props(t)));
        }
    }

    private void endTimeline(Phase phase) {
        String path = layout.timeline(phase);
        Map<String, String> t = Nodes.props(Nodes.read(client, path));
        if (!t.containsKey("end")) {
            t.put("end", Long.toString(System.currentTimeMillis()));
            Nodes.put(client, path, Nodes.utf8(Nodes.props(t)));
        }
    }

    private void checkLeader() {
        if (!latch.isLeader()) {
            throw new NotLeader();
        }
    }
}
