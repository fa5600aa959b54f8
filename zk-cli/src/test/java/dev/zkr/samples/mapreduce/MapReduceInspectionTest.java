package dev.zkr.samples.mapreduce;

import dev.zkr.cli.Cli;
import dev.zkr.cli.Cli.Result;
import dev.zkr.cli.Formats;
import dev.zkr.client.ZkClient;
import dev.zkr.client.ZkException;
import dev.zkr.testkit.TestEnsemble;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code zkr leader|barrier|locks} on a running MapReduce sample (issue 17's "inspect a running MapReduce sample"):
 * the job runs against a real zkr server on loopback; the first worker to reach the shuffle barrier is held just
 * before entering it (the sample's {@code beforeBarrier} test seam), so the job stands still with the other
 * parties blocked in the barrier and master-1 leading; the inspection then reads a state that cannot change under
 * it. Released, the job runs into reduce, where the first worker to commit its partition is held inside the output
 * commit lock (the {@code insideCommit} seam) while every other worker queues on that lock with its own partition:
 * {@code zkr locks /mapreduce} then shows the holder and the waiters in order, matched to worker ids through
 * {@code zkr group}. Released again, the job finishes and its word count is checked as usual.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class MapReduceInspectionTest {

    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final String ROOT = "/mapreduce";

    /** The worker held inside the commit lock, with the fencing token its lease reported. */
    private record Committer(String id, long token) {
    }

    @Test
    void leaderBarrierAndLocksOfARunningJob(@TempDir Path out) throws Exception {
        JobOptions options = JobOptions.defaults().withSize(11, 1 << 18, 8).withOutputDir(out);
        assertEquals(ROOT, options.root());
        assertTrue(options.workers() >= options.reducers(), "every partition's committer can queue at once");
        Layout layout = new Layout(ROOT);
        AtomicReference<String> held = new AtomicReference<>();
        CountDownLatch release = new CountDownLatch(1);
        AtomicReference<Committer> committer = new AtomicReference<>();
        CountDownLatch releaseCommit = new CountDownLatch(1);

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
                    }, (id, token) -> {
                        if (committer.compareAndSet(null, new Committer(id, token))) {
                            await(releaseCommit); // the first committer waits here, holding the commit lock
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
                Result leader = zkr(server, "leader", election);
                assertEquals("election " + election + " (fair): leader master-1, fencing token " + token
                        + ", " + options.masters() + " participants", leader.lines().get(0), leader::toString);
                assertTrue(leader.lines().get(1).matches("  leader +master-1 +session 0x.*node " + queue.get(0)),
                        leader::toString);
                assertTrue(leader.lines().get(2).matches("  follower 1 +master-2 +session 0x.*"), leader::toString);

                // zkr barrier: entering, everyone but the held worker in, waiting for one
                Result b = zkr(server, "barrier", barrier, "--parties", String.valueOf(spec.members().size()));
                assertEquals("double barrier " + barrier + ": entering, " + others.size() + " of "
                        + spec.members().size() + " entered, waiting for 1", b.lines().get(0), b::toString);
                assertEquals(others.size() + 1, b.lines().size(), b::toString);
                for (String w : others) {
                    assertTrue(b.lines().stream().anyMatch(l -> l.matches("  in  " + w + " +session 0x.*")),
                            () -> w + " entered: " + b);
                }
                assertFalse(b.out().contains(held.get() + " "), b::toString);

                // zkr locks: before reduce nobody has taken the commit lock (tasks are claimed from queues)
                Result free = zkr(server, "locks", ROOT);
                assertEquals(List.of("no locks at or directly below " + ROOT), free.lines(), free::toString);
                release.countDown();

                // reduce: the first committer holds the commit lock, every other worker waits on it
                Cli.await("a worker held inside the commit lock", WAIT, () -> committer.get() != null);
                String lock = layout.commitLock();
                Cli.await(options.reducers() + " nodes queued on " + lock, WAIT,
                        () -> lockNodes(look, lock).size() == options.reducers());
                Map<String, String> idsBySession = groupSessions(zkr(server, "group", layout.workers()));
                List<String> queued = lockNodes(look, lock);
                List<String> order = new ArrayList<>();
                for (String node : queued) {
                    order.add(idsBySession.get(Formats.hex(look.exists(lock + "/" + node).ephemeralOwner())));
                }
                Committer c = committer.get();
                assertEquals(c.id(), order.get(0), () -> "the first lock node is the held committer's: " + order);
                assertEquals(c.token(), look.exists(lock + "/" + queued.get(0)).czxid());

                Result locks = zkr(server, "locks", ROOT);
                List<String> lines = locks.lines();
                assertEquals("lock " + lock + " (mutex): held by 1, " + (queued.size() - 1) + " waiting",
                        lines.get(0), locks::toString);
                assertEquals(queued.size() + 1, lines.size(), locks::toString);
                Matcher holder = LOCK_LINE.matcher(lines.get(1));
                assertTrue(holder.matches() && holder.group(1).equals("holder   "), locks::toString);
                assertEquals(c.id(), idsBySession.get(holder.group(2)), locks::toString);
                assertEquals("  fencing token " + c.token(), holder.group(3), locks::toString);
                assertEquals(queued.get(0), holder.group(4), locks::toString);
                for (int i = 1; i < queued.size(); i++) {
                    Matcher waiter = LOCK_LINE.matcher(lines.get(i + 1));
                    assertTrue(waiter.matches(), locks::toString);
                    assertEquals(String.format("waiter %-2d", i), waiter.group(1), locks::toString);
                    assertEquals(order.get(i), idsBySession.get(waiter.group(2)), locks::toString);
                    assertNull(waiter.group(3), locks::toString); // no fencing token: not a holder
                    assertEquals(queued.get(i), waiter.group(4), locks::toString);
                }
                List<String> waiting = order.subList(1, order.size());
                assertFalse(waiting.contains(c.id()) || waiting.contains(null), () -> "waiters: " + order);
            } finally {
                release.countDown();
                releaseCommit.countDown();
            }
            JobResult r = job.get(WAIT.toSeconds(), TimeUnit.SECONDS);
            assertTrue(r.correct(), r.verdict());
            assertEquals(1, r.barrierForms());
            // the manifest names the held committer with the fencing token zkr locks showed for it
            Manifest manifest = JobOutput.readManifest(out);
            assertEquals(options.reducers(), manifest.partitions().size(), manifest::encode);
            Committer c = committer.get();
            assertTrue(manifest.partitions().values().stream()
                    .anyMatch(p -> p.worker().equals(c.id()) && p.token() == c.token()), manifest::encode);
            look.close();
        }
    }

    /** Runs {@code zkr} in-process, checks it succeeded, and prints the command and its output (for the README). */
    private static Result zkr(String server, String... args) {
        Result r = ok(Cli.zkr(server, args));
        System.out.println("$ zkr " + String.join(" ", args) + "\n" + r.out().stripTrailing());
        return r;
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

    /** A holder or waiter line of {@code zkr locks}: role, session, fencing token part, node. */
    private static final Pattern LOCK_LINE = Pattern.compile(
            "  (holder   |waiter \\d+ ?) lock  session (0x[0-9a-f]+)(  fencing token \\d+)? since .*  node (\\S+)");

    /** The lock's nodes in queue (sequence) order. */
    private static List<String> lockNodes(ZkClient client, String lock) {
        try {
            return client.getChildren(lock).stream().filter(c -> c.contains("-lock-"))
                    .sorted(Comparator.comparing(MapReduceInspectionTest::sequence)).toList();
        } catch (ZkException.NoNode e) {
            return List.of();
        }
    }

    /** Worker id by session, as {@code zkr group} lists the members. */
    private static Map<String, String> groupSessions(Result group) {
        Map<String, String> m = new HashMap<>();
        for (String line : group.lines().subList(1, group.lines().size())) {
            String[] f = line.trim().split(" +");
            assertEquals("session", f[1], group::toString);
            m.put(f[2], f[0]);
        }
        return m;
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
