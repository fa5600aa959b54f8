package dev.zkr.testkit.ensemble;

import dev.zkr.client.ConnectionState;
import dev.zkr.client.CreateMode;
import dev.zkr.client.ZkClient;
import dev.zkr.testkit.TestEnsemble;
import dev.zkr.tree.Txn;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import static dev.zkr.testkit.ensemble.Ensembles.childrenOn;
import static dev.zkr.testkit.ensemble.Ensembles.createRetrying;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Membership changes while clients write (issue 29's "replace a dead member while clients write" and "grow 3 → 5 →
 * 3 under load"): every write a client was answered OK for is on every voter at the end, and no session expires;
 * a server that joins after the others purged their logs takes the membership from the leader's snapshot.
 */
@Timeout(240)
class MembershipUnderLoadTest {

    /** Clients creating sequential-named nodes under /load until stopped; remembers each one answered OK. */
    private static final class Load implements AutoCloseable {
        final AtomicBoolean stop = new AtomicBoolean();
        final ConcurrentLinkedQueue<String> acked = new ConcurrentLinkedQueue<>();
        final List<Thread> threads = new ArrayList<>();
        final List<Ensembles.States> states = new ArrayList<>();
        final AtomicReference<Throwable> failure = new AtomicReference<>();

        Load(TestEnsemble e, int clients) throws Exception {
            e.newClient().create("/load", new byte[0], CreateMode.PERSISTENT);
            for (int k = 0; k < clients; k++) {
                ZkClient c = e.newClient(b -> b.sessionTimeout(Duration.ofSeconds(10)));
                states.add(Ensembles.States.of(c));
                String prefix = "/load/c" + k + "-";
                Thread t = new Thread(() -> {
                    try {
                        for (int n = 0; !stop.get(); n++) {
                            createRetrying(c, prefix + n, new byte[] {(byte) n});
                            acked.add((prefix + n).substring("/load/".length()));
                        }
                    } catch (Throwable x) {
                        failure.compareAndSet(null, x);
                    }
                }, "load-" + k);
                t.start();
                threads.add(t);
            }
        }

        /** Waits until {@code more} further writes were acknowledged (the load is really running). */
        void awaitProgress(int more) {
            int target = acked.size() + more;
            Ensembles.await(() -> "load progress to " + target + " (" + acked.size() + ", failure " + failure.get()
                    + ")", () -> acked.size() >= target || failure.get() != null);
            assertNull(failure.get(), "a load client failed");
        }

        @Override
        public void close() throws InterruptedException {
            stop.set(true);
            for (Thread t : threads) {
                t.join(60_000);
            }
        }

        /** Every acknowledged write is on each of {@code servers}; no client saw its session lost. */
        void check(TestEnsemble e, List<Integer> servers) {
            assertNull(failure.get(), "a load client failed");
            for (Ensembles.States s : states) {
                assertFalse(s.contains(ConnectionState.LOST), "a session was lost: " + s);
            }
            for (int i : servers) {
                Set<String> on = childrenOn(e, i, "/load");
                List<String> missing = acked.stream().filter(p -> !on.contains(p)).toList();
                assertTrue(missing.isEmpty(), "server " + i + " lacks " + missing.size() + " acknowledged writes, e.g. "
                        + missing.stream().limit(5).toList());
            }
        }
    }

    @Test
    void aDeadMemberIsReplacedWhileClientsWrite() throws Exception {
        try (TestEnsemble e = TestEnsemble.builder().servers(3).start(); Load load = new Load(e, 2)) {
            load.awaitProgress(200);
            int leader = e.leader();
            int dead = (leader + 1) % 3;
            e.kill(dead);
            load.awaitProgress(100);
            e.removeServer(dead);
            load.awaitProgress(100);
            int fresh = e.addServer();
            load.awaitProgress(200);
            load.close();
            List<Integer> voters = e.voters();
            assertEquals(3, voters.size());
            assertTrue(voters.contains(fresh) && !voters.contains(dead), voters.toString());
            load.check(e, voters);
        }
    }

    @Test
    void threeGrowToFiveAndShrinkToThreeUnderLoad() throws Exception {
        try (TestEnsemble e = TestEnsemble.builder().servers(3).start(); Load load = new Load(e, 2)) {
            load.awaitProgress(200);
            int a = e.addServer();
            load.awaitProgress(100);
            int b = e.addServer();
            load.awaitProgress(100);
            assertEquals(List.of(0, 1, 2, a, b), e.voters());
            // five voters tolerate two down
            int leader = e.leader();
            int[] two = Ensembles.others(5, leader, a, b);
            e.kill(two[0]);
            e.kill(two[1]);
            load.awaitProgress(100);
            e.restart(two[0]);
            e.restart(two[1]);
            // shrink: remove the leader and one other original member
            int first = e.leader();
            e.removeServer(first);
            load.awaitProgress(100);
            int second = e.voters().stream().filter(i -> i < 3).findFirst().orElseThrow();
            e.removeServer(second);
            load.awaitProgress(200);
            load.close();
            List<Integer> voters = e.voters();
            assertEquals(3, voters.size(), voters.toString());
            load.check(e, voters);
        }
    }

    @Test
    void aServerJoiningAfterThePurgeTakesTheMembershipFromTheSnapshot() throws Exception {
        try (TestEnsemble e = TestEnsemble.builder().servers(3)
                .configure(b -> b.snapshotInterval(50).logSegmentBytes(8192)).start()) {
            int observer = e.addObserver(); // a membership record, soon purged from the logs
            ZkClient c = e.newClient();
            c.create("/n", new byte[0], CreateMode.PERSISTENT);
            for (int i = 0; i < 400; i++) {
                Ensembles.setRetrying(c, "/n", ("v" + i).getBytes());
            }
            int fresh = e.addServer();
            assertEquals(1, e.server(fresh).snapshotInstalls(), "the new server caught up by SNAP");
            Txn.Membership seen = e.server(fresh).membership();
            assertEquals(e.server(e.leader()).membership(), seen);
            assertEquals(dev.zkr.client.EnsembleMember.Role.OBSERVER, seen.member(observer + 1).role(), seen.toString());
            // the membership records leave every log: restarted, a member configured with the first three lines
            // and the new one both rebuild the membership from their snapshots
            for (int i = 400; i < 800; i++) {
                Ensembles.setRetrying(c, "/n", ("v" + i).getBytes());
            }
            int original = Ensembles.others(3, e.leader())[0];
            e.restart(original);
            e.restart(fresh);
            Txn.Membership now = e.server(e.leader()).membership();
            assertEquals(now, e.server(original).membership(), "server " + original);
            assertEquals(now, e.server(fresh).membership(), "server " + fresh);
        }
    }
}
