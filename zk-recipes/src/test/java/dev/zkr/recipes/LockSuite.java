package dev.zkr.recipes;

import dev.zkr.client.ZkClient;
import dev.zkr.client.ZkException;
import dev.zkr.client.ZkPaths;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** DistributedLock and ReadWriteLock: exclusion, order, fencing, timeouts, interrupts and failures. */
public abstract class LockSuite extends RecipeSuite {

    @Test
    void mutualExclusionAndIncreasingFencingTokens() throws Exception {
        String lockPath = path("lock");
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger maxInside = new AtomicInteger();
        List<Long> tokens = Collections.synchronizedList(new ArrayList<>());
        List<Future<?>> workers = new ArrayList<>();
        for (int w = 0; w < 4; w++) {
            DistributedLock lock = Recipes.using(client()).lock(lockPath);
            workers.add(pool.submit(() -> {
                for (int i = 0; i < 5; i++) {
                    try (LockLease lease = lock.acquire()) {
                        maxInside.accumulateAndGet(inside.incrementAndGet(), Math::max);
                        assertTrue(lease.isValid());
                        tokens.add(lease.fencingToken());
                        inside.decrementAndGet();
                    }
                }
                return null;
            }));
        }
        for (Future<?> f : workers) {
            f.get(60, TimeUnit.SECONDS);
        }
        assertEquals(1, maxInside.get());
        assertEquals(20, tokens.size());
        for (int i = 1; i < tokens.size(); i++) {
            assertTrue(tokens.get(i) > tokens.get(i - 1), "fencing tokens increase: " + tokens);
        }
    }

    @Test
    void waitersAreServedInArrivalOrder() throws Exception {
        String lockPath = path("fifo");
        ZkClient observer = client();
        LockLease first = Recipes.using(client()).lock(lockPath).acquire();
        List<Integer> order = Collections.synchronizedList(new ArrayList<>());
        List<Future<?>> waiters = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            int n = i;
            DistributedLock lock = Recipes.using(client()).lock(lockPath);
            waiters.add(pool.submit(() -> {
                try (LockLease lease = lock.acquire()) {
                    order.add(n);
                }
                return null;
            }));
            eventually("waiter " + n + " queued", () -> children(observer, lockPath).size() == n + 2);
        }
        first.close();
        for (Future<?> f : waiters) {
            f.get(30, TimeUnit.SECONDS);
        }
        assertEquals(List.of(0, 1, 2), order);
    }

    @Test
    void tryAcquireTimesOutAndLeavesNothingBehind() {
        String lockPath = path("timeout");
        ZkClient holderClient = client();
        ZkClient waiterClient = client();
        LockLease held = Recipes.using(holderClient).lock(lockPath).acquire();
        Optional<LockLease> none = Recipes.using(waiterClient).lock(lockPath).tryAcquire(Duration.ofMillis(300));
        assertTrue(none.isEmpty());
        assertEquals(1, children(holderClient, lockPath).size());
        assertNoWatches(waiterClient);
        held.close();
        held.close(); // idempotent
        Optional<LockLease> got = Recipes.using(waiterClient).lock(lockPath).tryAcquire(WAIT);
        assertTrue(got.isPresent());
        got.get().close();
        assertNoWatches(waiterClient);
        assertNoWatches(holderClient);
    }

    @Test
    void interruptEndsTheWaitAndRemovesTheNode() throws Exception {
        String lockPath = path("interrupt");
        ZkClient holderClient = client();
        ZkClient waiterClient = client();
        LockLease held = Recipes.using(holderClient).lock(lockPath).acquire();
        CompletableFuture<Throwable> outcome = new CompletableFuture<>();
        Thread waiter = new Thread(() -> {
            try {
                Recipes.using(waiterClient).lock(lockPath).acquire();
                outcome.complete(null);
            } catch (Throwable t) {
                outcome.complete(t);
            }
        });
        waiter.start();
        eventually("waiter queued", () -> children(holderClient, lockPath).size() == 2);
        waiter.interrupt();
        Throwable t = outcome.get(10, TimeUnit.SECONDS);
        assertTrue(t instanceof ZkException.Interrupted, String.valueOf(t));
        eventually("waiter's node removed", () -> children(holderClient, lockPath).size() == 1);
        assertNoWatches(waiterClient);
        held.close();
    }

    @Test
    void holderClientClosedPassesTheLock() {
        String lockPath = path("closed");
        ZkClient holderClient = client();
        LockLease held = Recipes.using(holderClient).lock(lockPath).acquire();
        holderClient.close();
        LockLease next = Recipes.using(client()).lock(lockPath).tryAcquire(WAIT).orElseThrow();
        assertTrue(next.fencingToken() > held.fencingToken());
        assertFalse(held.isValid());
        held.close(); // releasing a lost lease is harmless
        next.close();
    }

    @Test
    void sessionExpiryWhileHoldingLosesTheLeaseBeforeAnotherHolds() {
        String lockPath = path("expire-holding");
        ZkClient a = client();
        ZkClient b = client();
        LockLease leaseA = Recipes.using(a).lock(lockPath).acquire();
        backend.expireSession(a);
        LockLease leaseB = Recipes.using(b).lock(lockPath).tryAcquire(WAIT).orElseThrow();
        eventually("A learns its lease is lost", () -> leaseA.state() == LeaseState.LOST);
        eventually("A has a new session", () -> a.state().isConnected());
        assertFalse(leaseA.isValid(), "never two holders");
        assertTrue(leaseB.isValid());
        assertTrue(leaseB.fencingToken() > leaseA.fencingToken());
        // A queues again with its new session: it must wait for B (CURATOR-604)
        assertTrue(Recipes.using(a).lock(lockPath).tryAcquire(Duration.ofMillis(500)).isEmpty());
        leaseA.close();
        leaseB.close();
        LockLease again = Recipes.using(a).lock(lockPath).tryAcquire(WAIT).orElseThrow();
        assertEquals(a.sessionId(), a.getData(again.nodePath()).stat().ephemeralOwner());
        again.close();
    }

    @Test
    void sessionExpiryWhileWaitingNeverGivesTwoHolders() throws Exception {
        String lockPath = path("expire-waiting");
        ZkClient a = client();
        ZkClient b = client();
        ZkClient observer = client();
        LockLease leaseA = Recipes.using(a).lock(lockPath).acquire();
        Future<LockLease> waiting = pool.submit(() -> Recipes.using(b).lock(lockPath).acquire());
        eventually("B queued", () -> children(observer, lockPath).size() == 2);
        long oldSession = b.sessionId();
        backend.expireSession(b);
        eventually("B has a new session", () -> b.sessionId() != oldSession && b.state().isConnected());
        eventually("B queued again with its new session", () -> children(observer, lockPath).size() == 2);
        assertFalse(waiting.isDone(), "B must not hold while A holds (CURATOR-696)");
        assertTrue(leaseA.isValid());
        leaseA.close();
        LockLease leaseB = waiting.get(20, TimeUnit.SECONDS);
        assertTrue(leaseB.isValid());
        assertEquals(b.sessionId(), observer.getData(leaseB.nodePath()).stat().ephemeralOwner());
        assertEquals(1, children(observer, lockPath).size());
        leaseB.close();
        eventually("no nodes left", () -> children(observer, lockPath).isEmpty());
        assertNoWatches(b);
    }

    @Test
    void releaseWhileDisconnectedPassesTheLockOnceTheServerIsBack() throws Exception {
        String lockPath = path("release-disconnected");
        ZkClient a = client(Duration.ofSeconds(30));
        ZkClient b = client(Duration.ofSeconds(30));
        LockLease leaseA = Recipes.using(a).lock(lockPath).acquire();
        List<LeaseState> seen = Collections.synchronizedList(new ArrayList<>());
        leaseA.addStateListener((l, s) -> seen.add(s), Runnable::run);
        Future<LockLease> waiting = pool.submit(() -> Recipes.using(b).lock(lockPath).acquire());
        eventually("B queued", () -> children(a, lockPath).size() == 2);
        backend.stopServer();
        try {
            eventually("A disconnected", () -> !a.state().isConnected());
            leaseA.close(); // the delete cannot go through now: a bounded wait, then it goes on in the background
            leaseA.close(); // idempotent
            assertEquals(LeaseState.RELEASED, leaseA.state());
            assertFalse(leaseA.isValid());
            assertFalse(waiting.isDone(), "B cannot hold before A's node is gone");
        } finally {
            backend.startServer();
        }
        LockLease leaseB = waiting.get(20, TimeUnit.SECONDS);
        assertTrue(leaseB.isValid());
        assertTrue(leaseB.fencingToken() > leaseA.fencingToken());
        assertEquals(1, children(a, lockPath).size(), "A's node was deleted after the reconnect");
        assertEquals(LeaseState.RELEASED, seen.get(seen.size() - 1));
        leaseB.close();
        eventually("no nodes left", () -> children(a, lockPath).isEmpty());
        assertNoWatches(a);
        assertNoWatches(b);
    }

    @Test
    void serverRestartMakesTheLeaseUncertainThenHeldAgain() {
        String lockPath = path("restart");
        ZkClient a = client(Duration.ofSeconds(20));
        LockLease lease = Recipes.using(a).lock(lockPath).acquire();
        List<LeaseState> seen = Collections.synchronizedList(new ArrayList<>());
        lease.addStateListener((l, s) -> seen.add(s), Runnable::run);
        backend.restartServer();
        eventually("lease held again", () -> lease.state() == LeaseState.HELD && lease.isValid());
        eventually("uncertain was reported", () -> seen.contains(LeaseState.UNCERTAIN));
        lease.close();
        assertEquals(LeaseState.RELEASED, lease.state());
    }

    @Test
    void lostCreateResponseLeavesNoOrphan() {
        String lockPath = path("lost-create");
        ZkClient observer = client();
        LostResponseClient flaky = new LostResponseClient(client()).loseCreates(1, p -> p.contains("/_c_"));
        LockLease lease = Recipes.using(flaky).lock(lockPath).tryAcquire(WAIT).orElseThrow();
        assertEquals(1, flaky.lost());
        assertEquals(1, children(observer, lockPath).size(), "the lost create was found, not repeated");
        lease.close();
        eventually("released", () -> children(observer, lockPath).isEmpty());
        Recipes.using(observer).lock(lockPath).tryAcquire(WAIT).orElseThrow().close();
    }

    @Test
    void notReentrant() {
        String lockPath = path("reentrant");
        DistributedLock lock = Recipes.using(client()).lock(lockPath);
        try (LockLease lease = lock.acquire()) {
            assertTrue(lock.tryAcquire(Duration.ofMillis(200)).isEmpty(), "a second acquire waits for the first");
            assertTrue(lease.isValid());
        }
    }

    /**
     * A waiter whose watched node goes while its cached listing still names a node ahead watches that node at once:
     * the listing the deletion sends (held back here) is not waited for. One round trip per step instead of two.
     */
    @Test
    void aWriterWatchesTheNextCachedReaderWithoutWaitingForTheListing() throws Exception {
        String lockPath = path("rw-next");
        LockLease r1 = Recipes.using(client()).readWriteLock(lockPath).readLock().acquire();
        LockLease r2 = Recipes.using(client()).readWriteLock(lockPath).readLock().acquire();
        LostResponseClient w = new LostResponseClient(client());
        DistributedLock writeLock = Recipes.using(w).readWriteLock(lockPath).writeLock();
        Future<LockLease> writer = pool.submit(() -> writeLock.acquire());
        eventually("the writer watches the reader before it", () -> w.watchedPaths().contains(r2.nodePath()));
        CompletableFuture<Void> listings = new CompletableFuture<>();
        w.holdListings(listings);
        r2.close();
        eventually("the writer watches the first reader, its listing held back",
                () -> w.watchedPaths().contains(r1.nodePath()));
        assertFalse(writer.isDone());
        listings.complete(null);
        r1.close();
        LockLease held = writer.get(20, TimeUnit.SECONDS);
        assertTrue(held.isValid());
        held.close();
        assertNoWatches(w);
    }

    @Test
    void readersShareWritersExclude() throws Exception {
        String lockPath = path("rw");
        ZkClient observer = client();
        ReadWriteLock rw1 = Recipes.using(client()).readWriteLock(lockPath);
        ReadWriteLock rw2 = Recipes.using(client()).readWriteLock(lockPath);
        ReadWriteLock rw3 = Recipes.using(client()).readWriteLock(lockPath);
        LockLease r1 = rw1.readLock().acquire();
        LockLease r2 = rw2.readLock().tryAcquire(WAIT).orElseThrow(); // readers share
        Future<LockLease> writer = pool.submit(() -> rw3.writeLock().acquire());
        eventually("writer queued", () -> children(observer, lockPath).size() == 3);
        // a reader arriving after a waiting writer waits for it
        Future<LockLease> lateReader = pool.submit(() -> rw1.readLock().acquire());
        eventually("late reader queued", () -> children(observer, lockPath).size() == 4);
        r1.close();
        assertFalse(writer.isDone(), "writer waits for every earlier reader");
        r2.close();
        LockLease w = writer.get(20, TimeUnit.SECONDS);
        assertFalse(lateReader.isDone(), "reader waits for the earlier writer");
        assertTrue(w.isValid());
        w.close();
        LockLease r3 = lateReader.get(20, TimeUnit.SECONDS);
        assertTrue(r3.fencingToken() > w.fencingToken());
        r3.close();
        eventually("nothing left", () -> children(observer, lockPath).isEmpty());
    }

    @Test
    void invalidPathsFailBeforeAnyIo() {
        Recipes recipes = Recipes.using(client());
        assertThrows(ZkException.InvalidPath.class, () -> recipes.lock("no-slash"));
        assertThrows(ZkException.InvalidPath.class, () -> recipes.readWriteLock("/a//b"));
        assertEquals("/x", ZkPaths.validate("/x"));
    }
}
