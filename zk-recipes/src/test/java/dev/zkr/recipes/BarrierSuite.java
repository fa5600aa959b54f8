package dev.zkr.recipes;

import dev.zkr.client.ZkClient;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** DoubleBarrier: entry only after all arrived, exit only after all left or died, timeouts, no leaks. */
public abstract class BarrierSuite extends RecipeSuite {

    private DoubleBarrier barrier(ZkClient c, String p, int parties, String id) {
        return Recipes.using(c).doubleBarrier(p).parties(parties).memberId(id).build();
    }

    @Test
    void enterWaitsForAllPartiesAndLeaveForAllMembers() throws Exception {
        String p = path("b");
        List<ZkClient> clients = List.of(client(), client(), client());
        DoubleBarrier b0 = barrier(clients.get(0), p, 3, "w0");
        DoubleBarrier b1 = barrier(clients.get(1), p, 3, "w1");
        DoubleBarrier b2 = barrier(clients.get(2), p, 3, "w2");
        Future<?> e0 = pool.submit(() -> b0.enter());
        Future<?> e1 = pool.submit(() -> b1.enter());
        eventually("two arrived", () -> children(clients.get(2), p).size() == 2);
        assertFalse(e0.isDone() || e1.isDone(), "nobody enters before all arrived");
        assertTrue(b2.enter(WAIT));
        e0.get(20, TimeUnit.SECONDS);
        e1.get(20, TimeUnit.SECONDS);

        Future<Boolean> l0 = pool.submit(() -> b0.leave(WAIT));
        Future<Boolean> l2 = pool.submit(() -> b2.leave(WAIT));
        List<Boolean> results = new ArrayList<>();
        results.add(b1.leave(WAIT));
        results.add(l0.get(20, TimeUnit.SECONDS));
        results.add(l2.get(20, TimeUnit.SECONDS));
        assertTrue(results.stream().allMatch(x -> x), "everyone left");
        eventually("barrier cleaned up", () -> children(clients.get(0), p).isEmpty());
        for (ZkClient c : clients) {
            assertNoWatches(c);
        }
    }

    @Test
    void nobodyLeavesBeforeEveryoneLeft() throws Exception {
        String p = path("leave");
        ZkClient c0 = client();
        ZkClient c1 = client();
        DoubleBarrier b0 = barrier(c0, p, 2, "a");
        DoubleBarrier b1 = barrier(c1, p, 2, "b");
        Future<?> e0 = pool.submit(() -> b0.enter());
        assertTrue(b1.enter(WAIT));
        e0.get(20, TimeUnit.SECONDS);
        Future<?> l0 = pool.submit(() -> b0.leave());
        assertFalse(b0.path().isEmpty());
        // b is still in: a must not get out
        assertFalse(waitDone(l0, Duration.ofMillis(300)), "a left before b");
        b1.leave();
        l0.get(20, TimeUnit.SECONDS);
        assertNoWatches(c0);
        assertNoWatches(c1);
    }

    @Test
    void deadMemberCountsAsLeft() throws Exception {
        String p = path("dead");
        ZkClient c0 = client();
        ZkClient c1 = client();
        DoubleBarrier b0 = barrier(c0, p, 2, "a");
        DoubleBarrier b1 = barrier(c1, p, 2, "b");
        Future<?> e0 = pool.submit(() -> b0.enter());
        assertTrue(b1.enter(WAIT));
        e0.get(20, TimeUnit.SECONDS);
        Future<Boolean> l0 = pool.submit(() -> b0.leave(WAIT));
        assertFalse(waitDone(l0, Duration.ofMillis(200)));
        c1.close(); // b dies inside the barrier
        assertTrue(l0.get(20, TimeUnit.SECONDS));
        assertNoWatches(c0);
    }

    /** Three members enter; returns their barriers (ids a, b, c: a is the lowest, the one that stays last). */
    private List<DoubleBarrier> threeInside(String p, List<ZkClient> clients) throws Exception {
        List<DoubleBarrier> bs = List.of(barrier(clients.get(0), p, 3, "a"), barrier(clients.get(1), p, 3, "b"),
                barrier(clients.get(2), p, 3, "c"));
        Future<?> e0 = pool.submit(() -> bs.get(0).enter());
        Future<?> e1 = pool.submit(() -> bs.get(1).enter());
        assertTrue(bs.get(2).enter(WAIT));
        e0.get(20, TimeUnit.SECONDS);
        e1.get(20, TimeUnit.SECONDS);
        return bs;
    }

    @Test
    void lowestDyingBeforeTheOthersLeaveCountsAsLeft() throws Exception {
        String p = path("lowest-dead-early");
        List<ZkClient> clients = List.of(client(), client(), client());
        List<DoubleBarrier> bs = threeInside(p, clients);
        clients.get(0).close(); // the lowest (marked when the barrier opened) dies before anyone leaves
        Future<Boolean> l1 = pool.submit(() -> bs.get(1).leave(WAIT));
        assertFalse(waitDone(l1, Duration.ofMillis(200)), "b left while c is still in");
        assertTrue(bs.get(2).leave(WAIT));
        assertTrue(l1.get(20, TimeUnit.SECONDS));
        eventually("barrier cleaned up", () -> children(clients.get(1), p).isEmpty());
        assertNoWatches(clients.get(1));
        assertNoWatches(clients.get(2));
    }

    @Test
    void lowestDyingWhileTheOthersWaitCountsAsLeft() throws Exception {
        String p = path("lowest-dead-late");
        List<ZkClient> clients = List.of(client(), client(), client());
        List<DoubleBarrier> bs = threeInside(p, clients);
        Future<Boolean> l1 = pool.submit(() -> bs.get(1).leave(WAIT));
        Future<Boolean> l2 = pool.submit(() -> bs.get(2).leave(WAIT));
        eventually("b and c left their nodes",
                () -> children(clients.get(0), p).stream().sorted().toList().equals(List.of("a", "ready")));
        assertFalse(waitDone(l1, Duration.ofMillis(200)) || l2.isDone(), "out while a is still in");
        clients.get(0).close(); // the lowest dies inside the barrier
        assertTrue(l1.get(20, TimeUnit.SECONDS));
        assertTrue(l2.get(20, TimeUnit.SECONDS));
        assertNoWatches(clients.get(1));
        assertNoWatches(clients.get(2));
    }

    @Test
    void leaveTimesOutWithoutLeavingWatches() throws Exception {
        String p = path("leave-timeout");
        List<ZkClient> clients = List.of(client(), client(), client());
        List<DoubleBarrier> bs = threeInside(p, clients);
        assertFalse(bs.get(0).leave(Duration.ofMillis(200)), "the lowest got out while b and c are in");
        assertFalse(bs.get(2).leave(Duration.ofMillis(200)), "c got out while a and b are in");
        assertNoWatches(clients.get(0));
        assertNoWatches(clients.get(2));
        assertTrue(bs.get(1).leave(WAIT)); // a and c left (timed out, but left): b is the last one out
        eventually("barrier cleaned up", () -> children(clients.get(1), p).isEmpty());
        for (ZkClient c : clients) {
            assertNoWatches(c);
        }
    }

    @Test
    void enterTimesOutAndWithdraws() {
        String p = path("timeout");
        ZkClient c = client();
        DoubleBarrier b = barrier(c, p, 2, "alone");
        assertFalse(b.enter(Duration.ofMillis(300)));
        assertTrue(children(c, p).isEmpty(), "the member node is removed on timeout");
        assertNoWatches(c);
        b.close();
        b.close();
    }

    @Test
    void memberSessionExpiryBeforeAllArrivedDoesNotCount() throws Exception {
        String p = path("expire");
        ZkClient c0 = client();
        ZkClient c1 = client();
        ZkClient c2 = client();
        DoubleBarrier b0 = barrier(c0, p, 3, "a");
        Future<?> e0 = pool.submit(() -> b0.enter());
        eventually("a arrived", () -> children(c1, p).size() == 1);
        long old = c0.sessionId();
        backend.expireSession(c0);
        eventually("a re-arrived with its new session", () -> c0.sessionId() != old
                && children(c1, p).size() == 1 && c1.exists(p + "/a").ephemeralOwner() == c0.sessionId());
        Future<?> e1 = pool.submit(() -> barrier(c1, p, 3, "b").enter());
        eventually("b arrived", () -> children(c2, p).size() == 2);
        assertFalse(e0.isDone() || e1.isDone());
        assertTrue(barrier(c2, p, 3, "c").enter(WAIT));
        e0.get(20, TimeUnit.SECONDS);
        e1.get(20, TimeUnit.SECONDS);
    }

    private static boolean waitDone(Future<?> f, Duration d) {
        try {
            f.get(d.toMillis(), TimeUnit.MILLISECONDS);
            return true;
        } catch (java.util.concurrent.TimeoutException e) {
            return false;
        } catch (Exception e) {
            return true;
        }
    }
}
