package dev.zkr.chaos.nemesis;

import dev.zkr.chaos.Cluster;

import java.util.ArrayList;
import java.util.List;

/**
 * The {@code replace-member} fault: a member (any, the leader included) is removed from the membership and stopped
 * for good, and a spare is started on an empty disk, catches up as the observer every member's configuration lists
 * it as, and is made a voter — in a drawn order: the fresh one first (the operator's safe order) or the removal
 * first (the ensemble runs one voter short meanwhile). Each change is made as the system's operator makes it
 * ({@link MemberAdmin}) and waited for until committed. A spare whose promotion fails is stopped again and retired.
 */
final class MemberReplacement {

    private final Cluster cluster;
    private final MemberAdmin admin;

    MemberReplacement(Cluster cluster) {
        this.cluster = cluster;
        this.admin = MemberAdmin.of(cluster);
    }

    /** Replaces {@code target} by the next spare, removing it first if {@code removeFirst}; returns what was done. */
    String replace(int target, boolean removeFirst) {
        int spare = cluster.nextSpare();
        if (spare < 0) {
            return cluster.size() == cluster.voters() ? "nothing replaced: no spares in this run (ZooKeeper's mixed "
                    + "runs: reconfigEnabled cannot run behind the per-link proxies their partitions need)"
                    : "no spare left: nothing replaced";
        }
        int in = id(spare);
        long t0 = System.nanoTime();
        List<String> steps = new ArrayList<>();
        String what = "replace server " + id(target) + " by server " + in + ": ";
        try {
            if (removeFirst) {
                remove(target, steps, t0);
            }
            cluster.startSpare(spare);
            steps.add("started " + in + " (empty disk)");
            try {
                admin.promote(spare);
            } catch (Exception e) {
                cluster.retire(spare);
                steps.add("promotion failed (" + e.getMessage() + "), " + in + " stopped");
                return what + String.join(", ", steps);
            }
            cluster.promoted(spare);
            steps.add(in + " a voter after " + ms(t0) + " ms");
            if (!removeFirst) {
                remove(target, steps, t0);
            }
        } catch (Exception e) {
            steps.add("failed: " + e);
        }
        return what + String.join(", ", steps);
    }

    private void remove(int target, List<String> steps, long t0) throws Exception {
        admin.remove(target);
        cluster.retire(target);
        steps.add(id(target) + " removed after " + ms(t0) + " ms and stopped");
    }

    private int id(int i) {
        return cluster.ensemble().id(i);
    }

    private static long ms(long t0) {
        return (System.nanoTime() - t0) / 1_000_000;
    }
}
