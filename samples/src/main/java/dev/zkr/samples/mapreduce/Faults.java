package dev.zkr.samples.mapreduce;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/** The faults asked for on the command line; each fires once, at a point in the middle of its phase. */
final class Faults {

    private final KillPoint killWorker;
    private final Phase killMaster;
    private final AtomicBoolean workerKilled = new AtomicBoolean();
    private final AtomicBoolean masterKilled = new AtomicBoolean();
    private final Map<Phase, AtomicInteger> claims = new ConcurrentHashMap<>();

    Faults(KillPoint killWorker, Phase killMaster) {
        this.killWorker = killWorker;
        this.killMaster = killMaster;
    }

    /** Called on every task claim: true for the claim (about halfway through the phase) whose worker must die. */
    boolean killWorkerOnClaim(Phase phase, int tasks) {
        if (killWorker == null || !killWorker.name().equals(phase.name())) {
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

    boolean workerKilled() {
        return workerKilled.get();
    }

    boolean masterKilled() {
        return masterKilled.get();
    }
}
