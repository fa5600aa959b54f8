package dev.zkr.testkit.ensemble;

import dev.zkr.client.ClientSupport;
import dev.zkr.client.CreateMode;
import dev.zkr.client.Created;
import dev.zkr.client.NodeData;
import dev.zkr.client.ZkClient;
import dev.zkr.client.ZkException;
import dev.zkr.testkit.TestEnsemble;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static dev.zkr.testkit.ensemble.Ensembles.await;
import static dev.zkr.testkit.ensemble.Ensembles.leaderAmong;
import static dev.zkr.testkit.ensemble.Ensembles.others;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Exactly-once writes over real sockets (docs/exactly-once.md, issue 30): three servers; two clients increment a
 * counter with conditional setData (the version they read; BadVersion means read again), two create sequential
 * nodes (one blocking call at a time, one in pipelined batches of 50), each create's data naming its call; meanwhile
 * the leader is killed and restarted, paused (as SIGSTOP) and resumed, isolated from its peers and healed, and a follower is isolated (its clients
 * move to the majority with their writes in flight, which the leader may have applied) and healed, again and
 * again. Every write must get
 * a definite answer — no ConnectionLoss, no OperationTimeout, no SessionExpired — the counter must end at the number
 * of increments answered OK, and every create call must have made exactly one node.
 */
@Timeout(300)
class ExactlyOnceEnsembleTest {

    private static final int ROUNDS = 3;

    @Test
    void writesAcrossLeaderKillsAndIsolationsAreAppliedExactlyOnce() throws Exception {
        try (TestEnsemble e = TestEnsemble.builder().servers(3).start()) {
            ZkClient setup = client(e);
            setup.create("/counter", bytes("0"), CreateMode.PERSISTENT);
            setup.create("/seq", new byte[0], CreateMode.PERSISTENT);

            AtomicBoolean stop = new AtomicBoolean();
            AtomicLong increments = new AtomicLong();
            AtomicLong creates = new AtomicLong();
            List<String> failures = new CopyOnWriteArrayList<>();
            Map<String, String> created = new ConcurrentHashMap<>(); // call id -> path
            List<Thread> workers = new ArrayList<>();
            for (int w = 0; w < 2; w++) {
                ZkClient c = client(e);
                workers.add(new Thread(() -> incrementUntil(stop, c, increments, failures), "increments-" + w));
            }
            ZkClient seq = client(e);
            workers.add(new Thread(() -> createUntil(stop, seq, "b", created, creates, failures), "creates"));
            ZkClient pipelined = client(e);
            workers.add(new Thread(() -> createBatchesUntil(stop, pipelined, created, creates, failures),
                    "pipelined-creates"));
            workers.forEach(Thread::start);

            int kills = 0;
            int pauses = 0;
            int isolations = 0;
            int followerIsolations = 0;
            for (int round = 0; round < ROUNDS; round++) {
                progress(increments, creates);
                int leader = e.leader();
                e.kill(leader);
                kills++;
                leaderAmong(e, others(3, leader));
                progress(increments, creates);
                e.restart(leader);
                progress(increments, creates);
                leader = e.leader();
                // as SIGSTOP: the others elect a leader; it wakes deposed, with its clients' writes still queued (it
                // wakes before they time out: a client that times out moves as after a kill)
                e.pause(leader);
                pauses++;
                leaderAmong(e, others(3, leader));
                e.resume(leader);
                progress(increments, creates);
                leader = leaderAmong(e, 0, 1, 2);
                e.isolate(leader);
                isolations++;
                leaderAmong(e, others(3, leader));
                progress(increments, creates);
                e.heal();
                leader = leaderAmong(e, 0, 1, 2);
                int follower = others(3, leader)[round % 2];
                e.isolate(follower);
                followerIsolations++;
                progress(increments, creates);
                e.heal();
            }
            progress(increments, creates);
            stop.set(true);
            for (Thread t : workers) {
                t.join(Ensembles.PATIENCE.toMillis() * 3);
                assertTrue(!t.isAlive(), t.getName() + " did not finish");
            }

            assertEquals(List.of(), failures, "writes without a definite answer");
            setup.sync("/"); // the final reads see every write (setup's server may have been behind)
            long counter = Long.parseLong(new String(setup.getData("/counter").data(), StandardCharsets.UTF_8));
            assertEquals(increments.get(), counter, "the counter against the increments answered OK");
            Map<String, List<String>> nodesPerCall = new HashMap<>();
            for (String child : setup.getChildren("/seq")) {
                NodeData d = setup.getData("/seq/" + child);
                nodesPerCall.computeIfAbsent(new String(d.data(), StandardCharsets.UTF_8), k -> new ArrayList<>())
                        .add(child);
            }
            nodesPerCall.forEach((call, nodes) -> assertEquals(1, nodes.size(), "call " + call + " made " + nodes));
            assertEquals(creates.get(), nodesPerCall.size(), "create calls answered OK against the nodes made");
            created.forEach((call, path) -> assertEquals(List.of(path.substring("/seq/".length())),
                    nodesPerCall.get(call), "call " + call + " was answered " + path));
            System.out.printf("ExactlyOnceEnsembleTest: %d leader kills, %d leader pauses, %d leader isolations, %d "
                    + "follower isolations; %d increments, %d creates, 0 writes without a definite answer%n", kills,
                    pauses, isolations,
                    followerIsolations, increments.get(), creates.get());
        }
    }

    private static ZkClient client(TestEnsemble e) {
        return e.newClient(b -> b.sessionTimeout(Duration.ofSeconds(20)).requestTimeout(Duration.ofSeconds(90))
                .connectTimeout(Ensembles.PATIENCE));
    }

    /** Waits until both workloads got some writes through (the ensemble serves again after the last fault). */
    private static void progress(AtomicLong increments, AtomicLong creates) {
        long i = increments.get();
        long c = creates.get();
        await("progress of the writes", () -> increments.get() >= i + 3 && creates.get() >= c + 3);
    }

    private static void incrementUntil(AtomicBoolean stop, ZkClient c, AtomicLong increments, List<String> failures) {
        while (!stop.get()) {
            try {
                NodeData d = c.getData("/counter");
                long v = Long.parseLong(new String(d.data(), StandardCharsets.UTF_8));
                try {
                    c.setData("/counter", bytes(Long.toString(v + 1)), d.stat().version());
                    increments.incrementAndGet();
                } catch (ZkException.BadVersion lost) {
                    // another increment came first: read again
                }
            } catch (RuntimeException ex) {
                failures.add(Thread.currentThread().getName() + ": " + ex);
                return;
            }
        }
    }

    private static void createUntil(AtomicBoolean stop, ZkClient c, String prefix, Map<String, String> created,
                                    AtomicLong creates, List<String> failures) {
        AtomicInteger n = new AtomicInteger();
        while (!stop.get()) {
            String call = prefix + n.incrementAndGet();
            try {
                created.put(call, c.create("/seq/n-", bytes(call), CreateMode.PERSISTENT_SEQUENTIAL));
                creates.incrementAndGet();
            } catch (RuntimeException ex) {
                failures.add(Thread.currentThread().getName() + " " + call + ": " + ex);
                return;
            }
        }
    }

    private static void createBatchesUntil(AtomicBoolean stop, ZkClient c, Map<String, String> created,
                                           AtomicLong creates, List<String> failures) {
        int n = 0;
        while (!stop.get()) {
            List<String> calls = new ArrayList<>();
            List<CompletableFuture<Created>> futures = new ArrayList<>();
            for (int i = 0; i < 50; i++) {
                String call = "p" + (++n);
                calls.add(call);
                futures.add(c.createAsync("/seq/n-", bytes(call), CreateMode.PERSISTENT_SEQUENTIAL));
            }
            for (int i = 0; i < futures.size(); i++) {
                try {
                    created.put(calls.get(i), Ensembles.get(futures.get(i)).path());
                    creates.incrementAndGet();
                } catch (ExecutionException ex) {
                    failures.add("pipelined " + calls.get(i) + ": " + ClientSupport.unwrap(ex.getCause()));
                } catch (InterruptedException ex) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
            if (!failures.isEmpty()) {
                return;
            }
        }
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
