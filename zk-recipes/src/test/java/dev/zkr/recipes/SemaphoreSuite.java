package dev.zkr.recipes;

import dev.zkr.client.ZkClient;
import dev.zkr.client.ZkException;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Semaphore: never more permits held than configured, arrival order, one watch per waiter, timeouts, interrupts and
 * failures, with one test per semaphore bug Curator and kazoo had (CURATOR-335, -595, -315, -462, kazoo #213).
 */
public abstract class SemaphoreSuite extends RecipeSuite {

    /** Permits in use, counted by the holders themselves: up after acquire returns, down before close. */
    private static final class Usage {
        final AtomicInteger inUse = new AtomicInteger();
        final AtomicInteger max = new AtomicInteger();

        void enter(SemaphoreLease lease) {
            max.accumulateAndGet(inUse.addAndGet(lease.permits()), Math::max);
        }

        void exit(SemaphoreLease lease) {
            inUse.addAndGet(-lease.permits());
            lease.close();
        }
    }

    private Semaphore semaphore(ZkClient c, String path, int permits) {
        return Recipes.using(c).semaphore(path).permits(permits).build();
    }

    @Test
    void neverMorePermitsThanConfigured() throws Exception {
        String semPath = path("sem");
        Usage usage = new Usage();
        List<Future<?>> workers = new ArrayList<>();
        for (int w = 0; w < 5; w++) {
            int n = w % 2 + 1; // some ask for one permit, some for two
            Semaphore sem = semaphore(client(), semPath, 3);
            workers.add(pool.submit(() -> {
                for (int i = 0; i < 6; i++) {
                    SemaphoreLease lease = sem.acquire(n);
                    assertTrue(lease.isValid());
                    assertEquals(n, lease.permits());
                    usage.enter(lease);
                    usage.exit(lease);
                }
                return null;
            }));
        }
        for (Future<?> f : workers) {
            f.get(60, TimeUnit.SECONDS);
        }
        assertTrue(usage.max.get() <= 3, "at most 3 permits in use, saw " + usage.max.get());
        eventually("no lease nodes left", () -> children(client(), semPath).isEmpty());
    }

    @Test
    void waitersAreServedInArrivalOrderWhateverHolderReleases() throws Exception {
        String semPath = path("fifo");
        ZkClient observer = client();
        SemaphoreLease first = semaphore(client(), semPath, 2).acquire();
        SemaphoreLease second = semaphore(client(), semPath, 2).acquire();
        List<Integer> order = Collections.synchronizedList(new ArrayList<>());
        List<Future<SemaphoreLease>> waiters = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            int n = i;
            Semaphore sem = semaphore(client(), semPath, 2);
            waiters.add(pool.submit(() -> {
                SemaphoreLease lease = sem.acquire();
                order.add(n);
                return lease;
            }));
            eventually("waiter " + n + " queued", () -> children(observer, semPath).size() == n + 3);
        }
        // the later holder releases first: the first waiter (not the one queued behind the releaser) gets in
        second.close();
        SemaphoreLease w0 = waiters.get(0).get(20, TimeUnit.SECONDS);
        assertEquals(List.of(0), order);
        first.close();
        SemaphoreLease w1 = waiters.get(1).get(20, TimeUnit.SECONDS);
        assertEquals(List.of(0, 1), order);
        assertFalse(waiters.get(2).isDone(), "two permits, both held");
        w0.close();
        waiters.get(2).get(20, TimeUnit.SECONDS).close();
        w1.close();
        assertEquals(List.of(0, 1, 2), order);
        eventually("no lease nodes left", () -> children(observer, semPath).isEmpty());
    }

    @Test
    void aLargeRequestHoldsBackLaterSmallOnesAndItsReleaseLetsThemAllIn() throws Exception {
        String semPath = path("large");
        ZkClient observer = client();
        SemaphoreLease one = semaphore(client(), semPath, 3).acquire();
        Future<SemaphoreLease> three = pool.submit(() -> semaphore(client(), semPath, 3).acquire(3));
        eventually("the large request queued", () -> children(observer, semPath).size() == 2);
        List<Future<SemaphoreLease>> small = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            Semaphore sem = semaphore(client(), semPath, 3);
            small.add(pool.submit(() -> sem.acquire()));
            int queued = i + 3;
            eventually("small request " + i + " queued", () -> children(observer, semPath).size() == queued);
        }
        assertTrue(small.stream().noneMatch(Future::isDone), "no barging past the queued large request");
        one.close();
        SemaphoreLease big = three.get(20, TimeUnit.SECONDS);
        assertEquals(3, big.permits());
        assertTrue(small.stream().noneMatch(Future::isDone), "all three permits are taken");
        big.close(); // one release lets the three waiters in, one after another (each wakes its successor)
        for (Future<SemaphoreLease> f : small) {
            assertTrue(f.get(20, TimeUnit.SECONDS).isValid());
        }
        for (Future<SemaphoreLease> f : small) {
            f.get().close();
        }
        eventually("no lease nodes left", () -> children(observer, semPath).isEmpty());
    }

    @Test
    void eachWaiterWatchesOneNodeAndNoTwoWatchTheSame() throws Exception {
        String semPath = path("herd");
        ZkClient observer = client();
        SemaphoreLease a = semaphore(client(), semPath, 2).acquire();
        SemaphoreLease b = semaphore(client(), semPath, 2).acquire();
        List<ZkClient> waiterClients = new ArrayList<>();
        List<Future<SemaphoreLease>> waiters = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            ZkClient c = client();
            waiterClients.add(c);
            Semaphore sem = semaphore(c, semPath, 2);
            waiters.add(pool.submit(() -> sem.acquire()));
            int queued = i + 3;
            eventually("waiter " + i + " queued", () -> children(observer, semPath).size() == queued);
        }
        eventually("every waiter watches one path, none the same",
                () -> waiterClients.stream().allMatch(c -> c.watchedPaths().size() == 1)
                        && waiterClients.stream().map(c -> c.watchedPaths().iterator().next())
                        .collect(java.util.stream.Collectors.toSet()).size() == 4);
        a.close();
        b.close();
        for (Future<SemaphoreLease> f : waiters) {
            f.get(20, TimeUnit.SECONDS).close();
        }
        for (ZkClient c : waiterClients) {
            assertNoWatches(c);
        }
    }

    @Test
    void tryAcquireTimesOutAndZeroTimeoutTriesOnce() {
        String semPath = path("try");
        ZkClient observer = client();
        ZkClient c = client();
        Semaphore sem = semaphore(c, semPath, 2);
        SemaphoreLease held = sem.tryAcquire(Duration.ZERO).orElseThrow(); // free: a zero timeout succeeds
        assertTrue(sem.tryAcquire(2, Duration.ofMillis(200)).isEmpty(), "only one permit left");
        assertEquals(1, children(observer, semPath).size(), "the timed-out request left nothing");
        SemaphoreLease second = sem.tryAcquire(1, Duration.ZERO).orElseThrow();
        assertTrue(sem.tryAcquire(Duration.ZERO).isEmpty());
        assertEquals(2, children(observer, semPath).size());
        assertNoWatches(c);
        held.close();
        second.close();
        held.close(); // idempotent
        eventually("no lease nodes left", () -> children(observer, semPath).isEmpty());
    }

    @Test
    void invalidArgumentsFailBeforeAnyIo() {
        Recipes recipes = Recipes.using(client());
        assertThrows(IllegalArgumentException.class, () -> recipes.semaphore(path("x")).permits(0));
        Semaphore sem = recipes.semaphore(path("x")).permits(2).build();
        assertThrows(IllegalArgumentException.class, () -> sem.acquire(0));
        assertThrows(IllegalArgumentException.class, () -> sem.acquire(3));
        assertThrows(ZkException.InvalidPath.class, () -> recipes.semaphore("no-slash"));
        assertEquals(2, sem.permits());
    }

    @Test
    void interruptWhileWaitingRemovesTheNode() throws Exception {
        String semPath = path("interrupt");
        ZkClient observer = client();
        ZkClient waiterClient = client();
        SemaphoreLease held = semaphore(client(), semPath, 1).acquire();
        CompletableFuture<Throwable> outcome = new CompletableFuture<>();
        Thread waiter = new Thread(() -> {
            try {
                semaphore(waiterClient, semPath, 1).acquire();
                outcome.complete(null);
            } catch (Throwable t) {
                outcome.complete(t);
            }
        });
        waiter.start();
        eventually("waiter queued", () -> children(observer, semPath).size() == 2);
        waiter.interrupt();
        Throwable t = outcome.get(10, TimeUnit.SECONDS);
        assertTrue(t instanceof ZkException.Interrupted, String.valueOf(t));
        eventually("waiter's node removed", () -> children(observer, semPath).size() == 1);
        assertNoWatches(waiterClient);
        held.close();
    }

    /**
     * CURATOR-462: an interrupt at the wrong time (right after the lease node's create is sent, before its
     * response) left an orphan lease node that counted as a holder for ever. Here the create is abandoned: the node
     * it makes is deleted when the response arrives, and the permits are all free again.
     */
    @Test
    void curator462InterruptRightAfterTheCreateLeavesNoOrphan() throws Exception {
        String semPath = path("c462");
        ZkClient observer = client();
        SemaphoreLease other = semaphore(client(), semPath, 2).acquire(); // the parent exists
        LostResponseClient flaky = new LostResponseClient(client()).interruptAfterNextCreate(p -> p.contains("/_c_"));
        Semaphore sem = semaphore(flaky, semPath, 2);
        CompletableFuture<Throwable> outcome = new CompletableFuture<>();
        Thread t = new Thread(() -> {
            try {
                sem.acquire();
                outcome.complete(null);
            } catch (Throwable e) {
                outcome.complete(e);
            }
        });
        t.start();
        Throwable thrown = outcome.get(10, TimeUnit.SECONDS);
        assertTrue(thrown instanceof ZkException.Interrupted, String.valueOf(thrown));
        eventually("only the other lease is left", () -> children(observer, semPath).size() == 1);
        other.close();
        SemaphoreLease all = semaphore(observer, semPath, 2).tryAcquire(2, WAIT).orElseThrow();
        all.close();
        eventually("no lease nodes left", () -> children(observer, semPath).isEmpty());
    }

    /**
     * CURATOR-315: a reconnect during acquire (the create applied, its response lost with the connection) left an
     * orphan lease node that blocked the semaphore. Here the lost create is found by its UUID and used: one node.
     */
    @Test
    void curator315ReconnectDuringAcquireLeavesNoOrphan() {
        String semPath = path("c315");
        ZkClient observer = client();
        LostResponseClient flaky = new LostResponseClient(client(Duration.ofSeconds(30)))
                .loseCreates(1, p -> p.contains("/_c_"))
                .onLoss(backend::restartServer);
        SemaphoreLease lease = semaphore(flaky, semPath, 1).tryAcquire(WAIT).orElseThrow();
        assertEquals(1, flaky.lost());
        assertEquals(1, children(observer, semPath).size(), "the lost create was found, not repeated");
        lease.close();
        eventually("released", () -> children(observer, semPath).isEmpty());
        semaphore(observer, semPath, 1).tryAcquire(WAIT).orElseThrow().close();
    }

    /**
     * CURATOR-595: the permits of a holder whose session was LOST were not released for others. Here the expired
     * holder's node goes with its session: the waiters get the permits, and the old lease reports LOST.
     */
    @Test
    void curator595ALostSessionReleasesItsPermits() throws Exception {
        String semPath = path("c595");
        ZkClient a = client();
        SemaphoreLease leaseA = semaphore(a, semPath, 2).acquire(2);
        Future<SemaphoreLease> b = pool.submit(() -> semaphore(client(), semPath, 2).acquire());
        Future<SemaphoreLease> c = pool.submit(() -> semaphore(client(), semPath, 2).acquire());
        eventually("both queued", () -> children(a, semPath).size() == 3);
        backend.expireSession(a);
        SemaphoreLease leaseB = b.get(20, TimeUnit.SECONDS);
        SemaphoreLease leaseC = c.get(20, TimeUnit.SECONDS);
        eventually("A learns its lease is lost", () -> leaseA.state() == LeaseState.LOST);
        assertFalse(leaseA.isValid());
        assertTrue(leaseB.isValid() && leaseC.isValid());
        eventually("A has a new session", () -> a.state().isConnected());
        assertTrue(semaphore(a, semPath, 2).tryAcquire(Duration.ofMillis(300)).isEmpty(),
                "A's new session queues behind the new holders");
        leaseA.close(); // harmless
        leaseB.close();
        SemaphoreLease again = semaphore(a, semPath, 2).tryAcquire(WAIT).orElseThrow();
        again.close();
        leaseC.close();
        eventually("no lease nodes left", () -> children(a, semPath).isEmpty());
    }

    /**
     * CURATOR-335: under network stress (connections dropping while acquires and releases are in flight) the
     * semaphore stopped granting leases. Here workers acquire and release in a loop while the server is restarted
     * several times; every worker finishes its rounds, the permits are never exceeded, and nothing is left.
     */
    @Test
    void curator335KeepsGrantingLeasesUnderNetworkStress() throws Exception {
        String semPath = path("c335");
        ZkClient observer = client(Duration.ofSeconds(30));
        Usage usage = new Usage();
        AtomicBoolean stressing = new AtomicBoolean(true);
        AtomicInteger rounds = new AtomicInteger();
        List<Future<?>> workers = new ArrayList<>();
        for (int w = 0; w < 4; w++) {
            Semaphore sem = semaphore(client(Duration.ofSeconds(30)), semPath, 2);
            workers.add(pool.submit(() -> {
                int done = 0;
                while (done < 10 || stressing.get()) {
                    Optional<SemaphoreLease> lease;
                    try {
                        lease = sem.tryAcquire(Duration.ofSeconds(5));
                    } catch (ZkException.ConnectionLoss e) {
                        continue; // the connection did not come back within the timeout: try again
                    }
                    if (lease.isEmpty()) {
                        continue;
                    }
                    SemaphoreLease l = lease.get();
                    if (l.isValid()) {
                        usage.enter(l);
                        usage.exit(l);
                    } else {
                        l.close();
                    }
                    done++;
                    rounds.incrementAndGet();
                }
                return null;
            }));
        }
        for (int i = 0; i < 3; i++) {
            int before = rounds.get();
            eventually("leases granted before restart " + i, () -> rounds.get() > before + 2);
            backend.restartServer();
        }
        int before = rounds.get();
        eventually("leases granted after the last restart", () -> rounds.get() > before + 4);
        stressing.set(false);
        for (Future<?> f : workers) {
            f.get(60, TimeUnit.SECONDS);
        }
        assertTrue(usage.max.get() <= 2, "at most 2 permits in use, saw " + usage.max.get());
        eventually("no lease nodes left", () -> children(observer, semPath).isEmpty());
    }

    /**
     * kazoo #213: non-blocking acquires exceeded the maximum. Here many clients try with a zero timeout at the same
     * time, in a loop: the permits held never exceed the maximum, and the tries leave nothing behind.
     */
    @Test
    void kazoo213NonBlockingTriesNeverExceedThePermits() throws Exception {
        String semPath = path("k213");
        Usage usage = new Usage();
        AtomicInteger granted = new AtomicInteger();
        CountDownLatch start = new CountDownLatch(1);
        List<Future<?>> workers = new ArrayList<>();
        for (int w = 0; w < 6; w++) {
            Semaphore sem = semaphore(client(), semPath, 2);
            workers.add(pool.submit(() -> {
                start.await();
                for (int i = 0; i < 15; i++) {
                    Optional<SemaphoreLease> lease = sem.tryAcquire(Duration.ZERO);
                    if (lease.isPresent()) {
                        granted.incrementAndGet();
                        usage.enter(lease.get());
                        usage.exit(lease.get());
                    }
                }
                return null;
            }));
        }
        start.countDown();
        for (Future<?> f : workers) {
            f.get(60, TimeUnit.SECONDS);
        }
        assertTrue(usage.max.get() <= 2, "at most 2 permits in use, saw " + usage.max.get());
        assertTrue(granted.get() > 0, "some tries succeed");
        ZkClient observer = client();
        eventually("no lease nodes left", () -> children(observer, semPath).isEmpty());
        Set<String> none = new HashSet<>(children(observer, semPath));
        assertEquals(Set.of(), none);
    }

    @Test
    void holderClientClosedFreesItsPermits() {
        String semPath = path("closed");
        ZkClient holderClient = client();
        SemaphoreLease held = semaphore(holderClient, semPath, 1).acquire();
        holderClient.close();
        SemaphoreLease next = semaphore(client(), semPath, 1).tryAcquire(WAIT).orElseThrow();
        assertTrue(next.fencingToken() > held.fencingToken());
        assertFalse(held.isValid());
        held.close();
        next.close();
    }

    @Test
    void serverRestartMakesTheLeaseUncertainThenHeldAgain() {
        String semPath = path("restart");
        ZkClient a = client(Duration.ofSeconds(20));
        SemaphoreLease lease = semaphore(a, semPath, 3).acquire(2);
        List<LeaseState> seen = Collections.synchronizedList(new ArrayList<>());
        lease.addStateListener((l, s) -> seen.add(s), Runnable::run);
        backend.restartServer();
        eventually("lease held again", () -> lease.state() == LeaseState.HELD && lease.isValid());
        eventually("uncertain was reported", () -> seen.contains(LeaseState.UNCERTAIN));
        lease.close();
        assertEquals(LeaseState.RELEASED, lease.state());
    }
}
