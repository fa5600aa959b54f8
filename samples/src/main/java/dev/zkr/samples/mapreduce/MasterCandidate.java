package dev.zkr.samples.mapreduce;

import dev.zkr.client.ZkClient;
import dev.zkr.client.ZkException;
import dev.zkr.recipes.LeaderLatch;
import dev.zkr.recipes.Recipes;

import java.time.Duration;
import java.util.List;

/** A master candidate: competes in the {@link LeaderLatch} and, once elected, runs the {@link Master}. */
final class MasterCandidate implements Runnable {

    private final String id;
    private final ZkClient client;
    private final Layout layout;
    private final JobOptions options;
    private final Cluster cluster;
    private final Faults faults;
    private final Console console;
    private final List<Throwable> failures;
    private final LeaderLatch latch;

    /** Joins the election at once (in the caller's thread), so candidates queue in the order they are made. */
    MasterCandidate(String id, ZkClient client, Layout layout, JobOptions options, Cluster cluster, Faults faults,
                    Console console, List<Throwable> failures) {
        this.id = id;
        this.client = client;
        this.layout = layout;
        this.options = options;
        this.cluster = cluster;
        this.faults = faults;
        this.console = console;
        this.failures = failures;
        this.latch = Recipes.using(client).leaderLatch(layout.election()).id(id).start();
    }

    /** True once this candidate's node is in the election queue. */
    boolean queued() {
        return latch.participants().contains(id);
    }

    @Override
    public void run() {
        try {
            while (!jobDone()) {
                if (!latch.await(Duration.ofMillis(250))) {
                    continue;
                }
                try {
                    new Master(id, client, layout, options, cluster, faults, console, latch).run();
                } catch (Master.NotLeader e) {
                    console.event("  %s lost leadership; competing again", id);
                } catch (ZkException.ConnectionLoss | ZkException.OperationTimeout e) {
                    // a call outside the retried helpers lost its answer: every step is safe to repeat
                    console.event("  %s: %s; resuming from the znodes", id, e.getMessage());
                }
            }
        } catch (Killed k) {
            return; // crashed: no cleanup, the session is gone
        } catch (RuntimeException e) {
            failures.add(e);
            console.event("! %s failed: %s", id, e);
        }
        latch.close();
        client.close();
    }

    private boolean jobDone() {
        try {
            return Phase.DONE.name().equals(Nodes.readOrNull(client, layout.state()));
        } catch (ZkException.ConnectionLoss e) {
            return false;
        }
    }
}
