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

    // ---- enterAsync / leaveAsync: no thread waits ------------------------------------------------------------------

    private static <T> T get(java.util.concurrent.CompletableFuture<T> f) throws Exception {
        return f.get(WAIT.toSeconds(), TimeUnit.SECONDS);
    }

    /**
     * Asynchronous members (many through one client, no thread each) and blocking ones meet at one barrier: nobody
     * enters before the last arrives, nobody leaves before the last leaves, and nothing is left behind.
     */
    @Test
    void asyncAndBlockingMembersEnterAndLeaveTogether() throws Exception {
        String p = path("async");
        int n = 12;
        ZkClient shared = client();
        ZkClient other = client();
        List<DoubleBarrier> async = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            async.add(barrier(shared, p, n + 1, String.format("m%02d", i)));
        }
        DoubleBarrier blocking = barrier(other, p, n + 1, "z-blocking");
        int threadsBefore = java.lang.management.ManagementFactory.getThreadMXBean().getThreadCount();
        List<java.util.concurrent.CompletableFuture<Void>> entered = new ArrayList<>();
        for (DoubleBarrier b : async) {
            entered.add(b.enterAsync());
        }
        eventually("all async members arrived", () -> children(other, p).size() == n);
        assertTrue(java.lang.management.ManagementFactory.getThreadMXBean().getThreadCount() <= threadsBefore + 2,
                "no thread per waiting member");
        assertFalse(waitDone(java.util.concurrent.CompletableFuture.anyOf(
                entered.toArray(java.util.concurrent.CompletableFuture[]::new)), Duration.ofMillis(200)),
                "entered before the last arrived");
        assertTrue(blocking.enter(WAIT));
        for (java.util.concurrent.CompletableFuture<Void> f : entered) {
            get(f);
        }
        List<java.util.concurrent.CompletableFuture<Void>> left = new ArrayList<>();
        for (DoubleBarrier b : async) {
            left.add(b.leaveAsync());
        }
        eventually("the async members left but the lowest", () -> children(other, p).size() <= 3);
        assertFalse(waitDone(java.util.concurrent.CompletableFuture.anyOf(
                left.toArray(java.util.concurrent.CompletableFuture[]::new)), Duration.ofMillis(200)),
                "left while a member is still in");
        assertTrue(blocking.leave(WAIT));
        for (java.util.concurrent.CompletableFuture<Void> f : left) {
            get(f);
        }
        eventually("barrier cleaned up", () -> children(other, p).isEmpty());
        assertNoWatches(shared);
        assertNoWatches(other);
    }

    /** An asynchronous leave waits for a blocking lowest, and the lowest (async) waits for the others. */
    @Test
    void asyncLowestWaitsForTheOthersToLeave() throws Exception {
        String p = path("async-lowest");
        ZkClient c0 = client();
        ZkClient c1 = client();
        ZkClient c2 = client();
        DoubleBarrier a = barrier(c0, p, 3, "a");
        DoubleBarrier b = barrier(c1, p, 3, "b");
        DoubleBarrier c = barrier(c2, p, 3, "c");
        java.util.concurrent.CompletableFuture<Void> ea = a.enterAsync();
        java.util.concurrent.CompletableFuture<Boolean> eb = b.enterAsync(WAIT);
        assertTrue(c.enter(WAIT));
        get(ea);
        assertTrue(get(eb));
        java.util.concurrent.CompletableFuture<Void> la = a.leaveAsync(); // the lowest: stays until b and c left
        java.util.concurrent.CompletableFuture<Boolean> lc = c.leaveAsync(WAIT);
        eventually("c departed", () -> !children(c0, p).contains("c"));
        assertFalse(waitDone(la, Duration.ofMillis(200)) || lc.isDone(), "left while b is in");
        assertTrue(children(c0, p).contains("a"), "the lowest keeps its node while others are in");
        assertTrue(b.leave(WAIT));
        get(la);
        assertTrue(get(lc));
        eventually("barrier cleaned up", () -> children(c0, p).isEmpty());
        for (ZkClient x : List.of(c0, c1, c2)) {
            assertNoWatches(x);
        }
    }

    /** Timeout gives false and withdraws (enter) or leaves anyway (leave); cancel and close give up likewise. */
    @Test
    void asyncTimeoutsCancelAndCloseGiveUpCleanly() throws Exception {
        String p = path("async-give-up");
        ZkClient c = client();
        DoubleBarrier alone = barrier(c, p, 2, "alone");
        assertFalse(get(alone.enterAsync(Duration.ofMillis(200))));
        eventually("node removed on timeout", () -> children(c, p).isEmpty());
        assertNoWatches(c);
        java.util.concurrent.CompletableFuture<Void> cancelled = alone.enterAsync();
        eventually("arrived", () -> children(c, p).size() == 1);
        cancelled.cancel(false);
        eventually("node removed on cancel", () -> children(c, p).isEmpty());
        assertNoWatches(c);
        java.util.concurrent.CompletableFuture<Void> closing = alone.enterAsync();
        eventually("arrived again", () -> children(c, p).size() == 1);
        alone.close();
        java.util.concurrent.ExecutionException e = org.junit.jupiter.api.Assertions.assertThrows(
                java.util.concurrent.ExecutionException.class, () -> get(closing));
        assertTrue(e.getCause() instanceof IllegalStateException, String.valueOf(e.getCause()));
        eventually("node removed on close", () -> children(c, p).isEmpty());
        assertNoWatches(c);
        org.junit.jupiter.api.Assertions.assertThrows(IllegalStateException.class, alone::enterAsync);

        String q = path("async-leave-timeout");
        List<ZkClient> clients = List.of(client(), client(), client());
        List<DoubleBarrier> bs = threeInside(q, clients);
        assertFalse(get(bs.get(0).leaveAsync(Duration.ofMillis(200))), "the lowest got out while b and c are in");
        assertFalse(get(bs.get(2).leaveAsync(Duration.ofMillis(200))), "c got out while a and b are in");
        assertNoWatches(clients.get(0));
        assertNoWatches(clients.get(2));
        assertTrue(get(bs.get(1).leaveAsync(WAIT))); // a and c left (timed out, but left): b is the last one out
        eventually("barrier cleaned up", () -> children(clients.get(1), q).isEmpty());
        for (ZkClient x : clients) {
            assertNoWatches(x);
        }
    }

    /** An asynchronous enter queues again with its new session after expiry; a dead lowest counts as left. */
    @Test
    void asyncMembersSurviveExpiryAndDeadMembersCountAsLeft() throws Exception {
        String p = path("async-expire");
        ZkClient c0 = client();
        ZkClient c1 = client();
        ZkClient c2 = client();
        java.util.concurrent.CompletableFuture<Void> e0 = barrier(c0, p, 3, "a").enterAsync();
        eventually("a arrived", () -> children(c1, p).size() == 1);
        long old = c0.sessionId();
        backend.expireSession(c0);
        eventually("a re-arrived with its new session", () -> c0.sessionId() != old
                && children(c1, p).size() == 1 && c1.exists(p + "/a").ephemeralOwner() == c0.sessionId());
        DoubleBarrier b = barrier(c1, p, 3, "b");
        DoubleBarrier c = barrier(c2, p, 3, "c");
        java.util.concurrent.CompletableFuture<Void> e1 = b.enterAsync();
        eventually("b arrived", () -> children(c2, p).size() == 2);
        assertFalse(e0.isDone() || e1.isDone());
        get(c.enterAsync());
        get(e0);
        get(e1);
        java.util.concurrent.CompletableFuture<Void> lc = c.leaveAsync();
        assertFalse(waitDone(lc, Duration.ofMillis(100)), "a and b are in");
        backend.expireSession(c0); // a (the lowest) dies
        assertTrue(get(b.leaveAsync(WAIT)));
        get(lc);
        eventually("barrier cleaned up", () -> children(c1, p).isEmpty());
        assertNoWatches(c1);
        assertNoWatches(c2);
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
