package dev.zkr.samples.mapreduce;

import dev.zkr.cli.Cli;
import dev.zkr.cli.Cli.Result;
import dev.zkr.client.ZkClient;
import dev.zkr.client.ZkException;
import dev.zkr.testkit.TestEnsemble;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code zkr leader|barrier|locks} on a running MapReduce sample (issue 17's "inspect a running MapReduce sample"):
 * the job runs against a real zkr server on loopback; the first worker to reach the shuffle barrier is held just
 * before entering it (the sample's {@code beforeBarrier} test seam), so the job stands still with the other
 * parties blocked in the barrier and master-1 leading; the inspection then reads a state that cannot change under
 * it. Released, the job finishes and its word count is checked as usual.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class MapReduceInspectionTest {

    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final String ROOT = "/mapreduce";

    @Test
    void leaderBarrierAndLocksOfARunningJob() throws Exception {
        JobOptions options = JobOptions.defaults().withSize(11, 1 << 18, 8);
        assertEquals(ROOT, options.root());
        Layout layout = new Layout(ROOT);
        AtomicReference<String> held = new AtomicReference<>();
        CountDownLatch release = new CountDownLatch(1);

        try (TestEnsemble ensemble = TestEnsemble.builder().start();
             Cluster cluster = Cluster.external(ensemble.connectString(), false, Cluster.SESSION_TIMEOUT)) {
            String server = ensemble.connectString();
            ZkClient look = ensemble.newClient();
            CompletableFuture<JobResult> job = new CompletableFuture<>();
            Thread driver = new Thread(() -> {
                try {
                    job.complete(MapReduceJob.run(options, cluster, null, id -> {
                        if (held.compareAndSet(null, id)) {
                            await(release); // the first worker at the barrier waits here for the inspection
                        }
                    }));
                } catch (Throwable t) {
                    job.completeExceptionally(t);
                }
            }, "mapreduce-driver");
            driver.setDaemon(true);
            driver.start();
            try {
                // the barrier's parties: every other party enters and blocks there, waiting for the held one
                Cli.await("a worker held before the shuffle barrier", WAIT, () -> held.get() != null);
                BarrierSpec spec = BarrierSpec.decode(look.getData(layout.barrierSpec()).data());
                List<String> others = new ArrayList<>(spec.members());
                assertTrue(others.remove(held.get()), () -> held.get() + " is a party of " + spec);
                String barrier = layout.barrier(spec.attempt());
                Cli.await(others.size() + " workers in " + barrier, WAIT,
                        () -> membersIn(look, barrier) == others.size());

                // zkr leader: master-1 (the first candidate queued) leads with its node's czxid as fencing token
                String election = layout.election();
                List<String> queue = look.getChildren(election).stream()
                        .sorted(Comparator.comparing(MapReduceInspectionTest::sequence)).toList();
                long token = look.exists(election + "/" + queue.get(0)).czxid();
                Result leader = ok(Cli.zkr(server, "leader", election));
                assertEquals("election " + election + " (fair): leader master-1, fencing token " + token
                        + ", " + options.masters() + " participants", leader.lines().get(0), leader::toString);
                assertTrue(leader.lines().get(1).matches("  leader +master-1 +session 0x.*node " + queue.get(0)),
                        leader::toString);
                assertTrue(leader.lines().get(2).matches("  follower 1 +master-2 +session 0x.*"), leader::toString);

                // zkr barrier: entering, everyone but the held worker in, waiting for one
                Result b = ok(Cli.zkr(server, "barrier", barrier, "--parties", String.valueOf(spec.members().size())));
                assertEquals("double barrier " + barrier + ": entering, " + others.size() + " of "
                        + spec.members().size() + " entered, waiting for 1", b.lines().get(0), b::toString);
                assertEquals(others.size() + 1, b.lines().size(), b::toString);
                for (String w : others) {
                    assertTrue(b.lines().stream().anyMatch(l -> l.matches("  in  " + w + " +session 0x.*")),
                            () -> w + " entered: " + b);
                }
                assertFalse(b.out().contains(held.get() + " "), b::toString);

                // zkr locks: the sample takes no locks (tasks are claimed from acknowledged queues), and says so
                Result locks = ok(Cli.zkr(server, "locks", ROOT));
                assertEquals(List.of("no locks at or directly below " + ROOT), locks.lines(), locks::toString);
            } finally {
                release.countDown();
            }
            JobResult r = job.get(WAIT.toSeconds(), TimeUnit.SECONDS);
            assertTrue(r.correct(), r.verdict());
            assertEquals(1, r.barrierForms());
            look.close();
        }
    }

    private static Result ok(Result r) {
        assertEquals(0, r.exit(), r::toString);
        assertEquals("", r.err(), r::toString);
        return r;
    }

    /** The double barrier's member nodes present (its {@code ready} node aside); 0 before the first enters. */
    private static int membersIn(ZkClient client, String barrier) {
        try {
            return (int) client.getChildren(barrier).stream().filter(c -> !c.equals("ready")).count();
        } catch (ZkException.NoNode e) {
            return 0;
        }
    }

    private static String sequence(String node) {
        return node.substring(node.length() - 10);
    }

    private static void await(CountDownLatch latch) {
        try {
            if (!latch.await(WAIT.toSeconds(), TimeUnit.SECONDS)) {
                throw new IllegalStateException("the inspection did not release the held worker");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
