package dev.zkr.samples.mapreduce;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

/** The faults asked for on the command line; each fires once, at a point in the middle of its phase. */
final class Faults {

    private final KillPoint killWorker;
    private final Phase killMaster;
    private final ServerKill killServer;
    private final AtomicBoolean workerKilled = new AtomicBoolean();
    private final AtomicBoolean masterKilled = new AtomicBoolean();
    private final AtomicBoolean serverKilled = new AtomicBoolean();
    private final Map<Phase, AtomicInteger> claims = new ConcurrentHashMap<>();
    private final Consumer<String> beforeBarrier;
    private final BiConsumer<String, Long> insideCommit;
    private final AtomicInteger commits = new AtomicInteger();
    private volatile ServerKillReport serverKillReport;

    Faults(KillPoint killWorker, Phase killMaster, ServerKill killServer) {
        this(killWorker, killMaster, killServer, id -> { }, (id, token) -> { });
    }

    /**
     * With test seams: {@code beforeBarrier} runs in a worker's thread (given the worker's id) just before it
     * enters the shuffle barrier, {@code insideCommit} (given the worker's id and its fencing token) while it holds
     * the output commit lock, so a test can hold a worker there and look at the job meanwhile.
     */
    Faults(KillPoint killWorker, Phase killMaster, ServerKill killServer, Consumer<String> beforeBarrier,
           BiConsumer<String, Long> insideCommit) {
        this.killWorker = killWorker;
        this.killMaster = killMaster;
        this.killServer = killServer;
        this.beforeBarrier = beforeBarrier;
        this.insideCommit = insideCommit;
    }

    /** Called by a worker while it holds the output commit lock (its part file in place, manifest not updated). */
    void insideCommit(String workerId, long fencingToken) {
        insideCommit.accept(workerId, fencingToken);
    }

    /** Called on every commit, inside the lock: true for the commit (about halfway through reduce) that must die. */
    boolean killWorkerInCommit(int reducers) {
        if (killWorker != KillPoint.REDUCE) {
            return false;
        }
        return commits.incrementAndGet() == Math.max(1, reducers / 2) && workerKilled.compareAndSet(false, true);
    }

    /** Called by a worker (a party of the barrier) just before it enters the shuffle barrier. */
    void beforeBarrier(String workerId) {
        beforeBarrier.accept(workerId);
    }

    /**
     * Called on every task claim: true for the claim (about halfway through the phase) whose worker must die. A
     * reduce kill fires inside the commit lock instead ({@link #killWorkerInCommit}).
     */
    boolean killWorkerOnClaim(Phase phase, int tasks) {
        if (killWorker == null || killWorker == KillPoint.REDUCE || !killWorker.name().equals(phase.name())) {
            return false;
        }
        int n = claims.computeIfAbsent(phase, p -> new AtomicInteger()).incrementAndGet();
        return n == Math.max(1, tasks / 2) && workerKilled.compareAndSet(false, true);
    }

    /** Called when a worker is about to enter the shuffle barrier: true for the first, which must die. */
    boolean killWorkerAtBarrier() {
        return killWorker == KillPoint.BARRIER && workerKilled.compareAndSet(false, true);
    }

    /** Called by the master as tasks complete: true once half of the phase's tasks are done. */
    boolean killMaster(Phase phase, int done, int tasks) {
        return killMaster == phase && done >= Math.max(1, tasks / 2) && masterKilled.compareAndSet(false, true);
    }

    /** Called by the master as tasks complete: the server to kill once half of the phase's tasks are done, or null. */
    ServerKill.Role killServer(Phase phase, int done, int tasks) {
        boolean now = killServer != null && killServer.phase() == phase && done >= Math.max(1, tasks / 2)
                && serverKilled.compareAndSet(false, true);
        return now ? killServer.role() : null;
    }

    void serverKilled(ServerKillReport report) {
        serverKillReport = report;
    }

    /** What the server kill did, or null if none happened. */
    ServerKillReport serverKillReport() {
        return serverKillReport;
    }

    boolean workerKilled() {
        return workerKilled.get();
    }

    boolean masterKilled() {
        return masterKilled.get();
    }
}
