package dev.zkr.recipes;

import dev.zkr.client.CreateMode;
import dev.zkr.client.ZkClient;
import dev.zkr.client.ZkException;
import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * {@link DistributedLock#acquireAsync()}: many waiters, no thread each, handoffs in arrival order; cancel, timeout,
 * expiry, restart, lost create responses, a closed client. The number of waiters of the handoff test is
 * {@code zkr.recipes.asyncWaiters} (default 200; {@code -Plong}: 10,000).
 */
public abstract class AsyncLockSuite extends RecipeSuite {

    private static final long TIMEOUT_S = 20;

    private static int waiters() {
        return Integer.getInteger("zkr.recipes.asyncWaiters", 200);
    }

    private static <T> T get(CompletableFuture<T> f) throws Exception {
        return f.get(TIMEOUT_S, TimeUnit.SECONDS);
    }

    /**
     * N waiters on one lock path through one client and a recipes executor of two threads: the JVM's thread count
     * does not grow with N while they wait, and the lock passes through them one at a time in the order they
     * asked (each holder releases from its completion callback), with increasing fencing tokens.
     */
    @Test
    void manyWaitersHoldNoThreadAndAreServedInOrder() throws Exception {
        int n = waiters();
        String p = path("many");
        ZkClient c = client(Duration.ofSeconds(30));
        ExecutorService two = Executors.newFixedThreadPool(2);
        try {
            DistributedLock lock = Recipes.using(c, two).lock(p);
            LockLease first = get(lock.acquireAsync());
            int threadsBefore = ManagementFactory.getThreadMXBean().getThreadCount();
            AtomicInteger next = new AtomicInteger();
            AtomicInteger holders = new AtomicInteger();
            AtomicLong lastToken = new AtomicLong(first.fencingToken());
            List<String> errors = java.util.Collections.synchronizedList(new ArrayList<>());
            List<CompletableFuture<Void>> done = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                int me = i;
                done.add(lock.acquireAsync().thenAccept(lease -> {
                    if (holders.incrementAndGet() != 1) {
                        errors.add("two holders at " + me);
                    }
                    if (next.getAndIncrement() != me) {
                        errors.add("waiter " + me + " served out of order");
                    }
                    if (lease.fencingToken() <= lastToken.getAndSet(lease.fencingToken())) {
                        errors.add("token of " + me + " did not increase");
                    }
                    holders.decrementAndGet();
                    lease.close();
                }));
            }
            ZkClient observer = client();
            long queueBy = System.nanoTime() + TimeUnit.SECONDS.toNanos(Math.max(20, n / 50));
            while (children(observer, p).size() != n + 1) { // polling with a deadline that grows with n
                assertTrue(System.nanoTime() - queueBy < 0, "every waiter queued in time");
                Thread.sleep(20);
            }
            int threadsWaiting = ManagementFactory.getThreadMXBean().getThreadCount();
            assertTrue(threadsWaiting - threadsBefore < 10, "threads grew from " + threadsBefore + " to "
                    + threadsWaiting + " with " + n + " waiters");
            long start = System.nanoTime();
            first.close();
            CompletableFuture.allOf(done.toArray(new CompletableFuture[0])).get(Math.max(60, n / 20), TimeUnit.SECONDS);
            long ms = Math.max(1, (System.nanoTime() - start) / 1_000_000);
            System.out.printf("async lock: %d waiters, %d handoffs in %d ms (%.0f/s), threads %d -> %d%n", n, n, ms,
                    n * 1000.0 / ms, threadsBefore, threadsWaiting);
            assertEquals(List.of(), errors);
            assertEquals(n, next.get());
            eventually("no node left", () -> children(observer, p).isEmpty());
            assertNoWatches(c);
        } finally {
            two.shutdownNow();
        }
    }

    /**
     * N = 500 waiters on one path through one client, each through a lock object of its own (as the bench queues
     * them), counted by a {@link CountingClient}: they share their listings ({@code ListingBatch}: a waiter joins the
     * next listing sent after its create) and pass the lock on without listing when the predecessor held through
     * the same client ({@code PathWaiters}). Bounds: at most N/10 listings while they queue (one per waiter without
     * the sharing: N, of up to N names each) and at most N/10 while the lock passes through all of them (one per
     * handoff without the shared holder names: N), and at most 20·N names listed while they queue (N²/2 without
     * the sharing); handoffs in order with increasing tokens.
     */
    @Test
    void waitersOfOneClientShareTheirListings() throws Exception {
        int n = 500;
        String p = path("shared");
        CountingClient c = new CountingClient(client(Duration.ofSeconds(30)));
        ExecutorService two = Executors.newFixedThreadPool(2);
        try {
            Recipes recipes = Recipes.using(c, two);
            LockLease first = get(recipes.lock(p).acquireAsync());
            c.reset();
            AtomicInteger next = new AtomicInteger();
            AtomicLong lastToken = new AtomicLong(first.fencingToken());
            List<String> errors = java.util.Collections.synchronizedList(new ArrayList<>());
            List<CompletableFuture<Void>> done = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                int me = i;
                done.add(recipes.lock(p).acquireAsync().thenAccept(lease -> {
                    if (next.getAndIncrement() != me) {
                        errors.add("waiter " + me + " served out of order");
                    }
                    if (lease.fencingToken() <= lastToken.getAndSet(lease.fencingToken())) {
                        errors.add("token of " + me + " did not increase");
                    }
                    lease.close();
                }));
            }
            // each waiter watches its predecessor (the first holder's node, or the waiter before it)
            eventually("every waiter watches its predecessor", () -> c.watchedPaths().size() == n);
            long queueListings = c.count(CountingClient.Kind.GET_CHILDREN);
            long queueNames = c.listedNames();
            c.reset();
            first.close();
            CompletableFuture.allOf(done.toArray(new CompletableFuture[0])).get(60, TimeUnit.SECONDS);
            long handoffListings = c.count(CountingClient.Kind.GET_CHILDREN);
            System.out.printf("shared listings: %d waiters queued with %d listings (%d names), passed on with %d "
                    + "listings (%d names)%n", n, queueListings, queueNames, handoffListings, c.listedNames());
            assertEquals(List.of(), errors);
            assertEquals(n, next.get());
            assertTrue(queueListings <= n / 10, queueListings + " listings to queue " + n + " waiters");
            assertTrue(queueNames <= 20L * n, queueNames + " names listed to queue " + n + " waiters");
            assertTrue(handoffListings <= n / 10, handoffListings + " listings to pass the lock through " + n);
            eventually("no node left", () -> children(c, p).isEmpty());
            assertNoWatches(c);
            eventually("the shared table forgets the path", () -> !PathWaiters.tracks(c, p));
        } finally {
            two.shutdownNow();
        }
    }

    /**
     * Waiters of one client (each through its own lock object) behind a holder; one in the middle is cancelled: its
     * successor, woken by the deletion of a node that never held, must not hold (the shared holder names know it did
     * not) but list again and wait for the waiter before it; the lock then passes on in order.
     */
    @Test
    void aCancelledWaiterAmongOneClientsWaitersPassesItsTurnOn() throws Exception {
        String p = path("shared-cancel");
        ZkClient c = client();
        Recipes recipes = Recipes.using(c);
        LockLease held = get(recipes.lock(p).acquireAsync());
        List<CompletableFuture<LockLease>> w = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            w.add(recipes.lock(p).acquireAsync());
        }
        eventually("every waiter watches its predecessor", () -> c.watchedPaths().size() == 4);
        assertTrue(w.get(1).cancel(false));
        // the watch on the cancelled node fired; its successor lists and watches the waiter before it again
        eventually("the successor watches again (or held)", () -> children(c, p).size() == 4
                && (c.watchedPaths().size() == 3 || w.get(2).isDone()));
        assertFalse(w.get(2).isDone(), "the cancelled waiter's successor held beside the first lease");
        assertFalse(w.get(0).isDone() || w.get(3).isDone(), "held while the first lease holds");
        held.close();
        LockLease l0 = get(w.get(0));
        assertTrue(l0.fencingToken() > held.fencingToken());
        assertFalse(w.get(2).isDone(), "the cancelled waiter's successor held beside the waiter before it");
        l0.close();
        LockLease l2 = get(w.get(2));
        assertFalse(w.get(3).isDone());
        l2.close();
        LockLease l3 = get(w.get(3));
        assertTrue(l3.fencingToken() > l2.fencingToken() && l2.fencingToken() > l0.fencingToken());
        l3.close();
        eventually("no node left", () -> children(c, p).isEmpty());
        assertNoWatches(c);
    }

    @Test
    void cancellingAWaiterDeletesItsNodeAndPassesTheLockOn() throws Exception {
        String p = path("cancel");
        ZkClient a = client();
        ZkClient b = client();
        ZkClient observer = client();
        LockLease held = get(Recipes.using(a).lock(p).acquireAsync());
        CompletableFuture<LockLease> cancelled = Recipes.using(b).lock(p).acquireAsync();
        CompletableFuture<LockLease> third = Recipes.using(observer).lock(p).acquireAsync();
        eventually("both queued", () -> children(observer, p).size() == 3);
        assertTrue(cancelled.cancel(false));
        eventually("the cancelled node is gone", () -> children(observer, p).size() == 2);
        assertNoWatches(b);
        // the third waiter, woken by the cancelled node's deletion, must see that a still holds and wait for it
        eventually("the third waiter watches the holder", () -> observer.watchedPaths().contains(held.nodePath()));
        assertFalse(third.isDone());
        held.close();
        LockLease l3 = get(third);
        assertTrue(l3.isValid());
        assertTrue(l3.fencingToken() > held.fencingToken());
        l3.close();
        assertThrows(CancellationException.class, cancelled::join);
    }

    @Test
    void readWriteLockSidesAcquireAsynchronously() throws Exception {
        String p = path("rw");
        ReadWriteLock rw1 = Recipes.using(client()).readWriteLock(p);
        ReadWriteLock rw2 = Recipes.using(client()).readWriteLock(p);
        ReadWriteLock rw3 = Recipes.using(client()).readWriteLock(p);
        LockLease r1 = get(rw1.readLock().acquireAsync());
        LockLease r2 = get(rw2.readLock().acquireAsync()); // readers share
        CompletableFuture<LockLease> w = rw3.writeLock().acquireAsync();
        ZkClient observer = client();
        eventually("the writer queued", () -> children(observer, p).size() == 3);
        CompletableFuture<LockLease> r3 = rw1.readLock().acquireAsync(); // behind the writer
        eventually("the late reader queued", () -> children(observer, p).size() == 4);
        r1.close();
        assertFalse(w.isDone());
        r2.close();
        LockLease lw = get(w);
        assertTrue(lw.isValid());
        assertFalse(r3.isDone());
        lw.close();
        get(r3).close();
    }

    @Test
    void multiLocksAcquireAsynchronouslyAllOrNothing() throws Exception {
        String a = path("m/a");
        String b = path("m/b");
        String c = path("m/c");
        ZkClient observer = client();
        LockLease ab = get(Recipes.using(client()).multiLock(List.of(b, a)).acquireAsync());
        ZkClient waiterClient = client();
        CompletableFuture<LockLease> bc = Recipes.using(waiterClient).multiLock(List.of(c, b)).acquireAsync();
        // one global order (sorted paths): bc waits for b before it takes c
        eventually("bc waits for b, holding nothing", () -> children(observer, b).size() == 2
                && children(observer, c).isEmpty());
        CompletableFuture<LockLease> given = Recipes.using(client()).multiLock(List.of(a, c)).acquireAsync();
        eventually("the third waits for a", () -> children(observer, a).size() == 2);
        assertTrue(given.cancel(false));
        eventually("the cancelled one's node is gone", () -> children(observer, a).size() == 1);
        assertFalse(bc.isDone());
        ab.close();
        LockLease both = get(bc);
        assertTrue(both.isValid());
        both.close();
        eventually("no node left", () -> children(observer, a).isEmpty() && children(observer, b).isEmpty()
                && children(observer, c).isEmpty());
        assertNoWatches(waiterClient);
    }

    /**
     * 24 asynchronous acquirers of a 3-permit semaphore through one client and two threads, some asking for 2
     * permits: never more than 3 permits held, every one served, in arrival order when they do not fit at once.
     */
    @Test
    void semaphoreAcquiresAsynchronouslyWithinItsPermits() throws Exception {
        String p = path("sem");
        ZkClient c = client();
        ExecutorService two = Executors.newFixedThreadPool(2);
        try {
            Semaphore sem = Recipes.using(c, two).semaphore(p).permits(3).build();
            SemaphoreLease first = get(sem.acquireAsync(3)); // everything held: the others queue
            AtomicInteger held = new AtomicInteger(3); // the permits held, the first lease's counted
            AtomicInteger most = new AtomicInteger();
            AtomicInteger served = new AtomicInteger();
            List<CompletableFuture<Void>> done = new ArrayList<>();
            for (int i = 0; i < 24; i++) {
                int want = i % 4 == 0 ? 2 : 1;
                done.add(sem.acquireAsync(want).thenAccept(lease -> {
                    most.accumulateAndGet(held.addAndGet(want), Math::max);
                    served.incrementAndGet();
                    held.addAndGet(-want);
                    lease.close();
                }));
            }
            ZkClient observer = client();
            eventually("all queued", () -> children(observer, p).size() == 25);
            assertEquals(0, served.get(), "nobody served while the first lease holds every permit");
            held.addAndGet(-3); // nobody can hold before the first lease's node is deleted, which comes next
            first.close();
            CompletableFuture.allOf(done.toArray(new CompletableFuture[0])).get(60, TimeUnit.SECONDS);
            assertEquals(24, served.get());
            assertTrue(most.get() <= 3, "at most 3 permits held at once, saw " + most.get());
            eventually("no node left", () -> children(observer, p).isEmpty());
            assertNoWatches(c);
        } finally {
            two.shutdownNow();
        }
    }

    /**
     * The first waiter of a full semaphore waits on a child watch: a change among the children (here a foreign node
     * made and deleted) makes it look again and wait again, never take a permit that is held.
     */
    @Test
    void aFullSemaphoresFirstWaiterWaitsThroughChildChanges() throws Exception {
        String p = path("sem-full");
        ZkClient c = client();
        ZkClient observer = client();
        Semaphore sem = Recipes.using(c).semaphore(p).permits(1).build();
        SemaphoreLease held = get(sem.acquireAsync());
        CompletableFuture<SemaphoreLease> waiter = sem.acquireAsync();
        eventually("the first waiter watches the children", () -> c.watchedPaths().contains(p));
        for (int i = 0; i < 3; i++) {
            observer.create(p + "/x", new byte[0], CreateMode.PERSISTENT, dev.zkr.client.Parents.NONE);
            observer.delete(p + "/x", -1);
            eventually("it watches the children again", () -> c.watchedPaths().contains(p));
        }
        assertFalse(waiter.isDone(), "a permit that is held was taken");
        held.close();
        get(waiter).close();
        eventually("no node left", () -> children(observer, p).isEmpty());
    }

    @Test
    void aCancelledSemaphoreWaiterLeavesNothing() throws Exception {
        String p = path("sem-cancel");
        ZkClient c = client();
        ZkClient observer = client();
        Semaphore sem = Recipes.using(c).semaphore(p).permits(1).build();
        SemaphoreLease held = get(sem.acquireAsync());
        CompletableFuture<SemaphoreLease> first = sem.acquireAsync(); // the first waiter: watches the children
        CompletableFuture<SemaphoreLease> second = sem.acquireAsync(); // watches the first
        eventually("both queued", () -> children(observer, p).size() == 3);
        assertTrue(first.cancel(false));
        eventually("the cancelled node is gone", () -> children(observer, p).size() == 2);
        held.close();
        get(second).close();
        eventually("no node left", () -> children(observer, p).isEmpty());
        assertNoWatches(c);
    }

    @Test
    void tryAcquireAsyncTimesOutEmptyAndLeavesNothing() throws Exception {
        String p = path("timeout");
        ZkClient a = client();
        ZkClient b = client();
        ZkClient observer = client();
        LockLease held = get(Recipes.using(a).lock(p).acquireAsync());
        Optional<LockLease> none = get(Recipes.using(b).lock(p).tryAcquireAsync(Duration.ofMillis(300)));
        assertTrue(none.isEmpty());
        eventually("the timed-out node is gone", () -> children(observer, p).size() == 1);
        assertNoWatches(b);
        held.close();
        Optional<LockLease> some = get(Recipes.using(b).lock(p).tryAcquireAsync(Duration.ofSeconds(5)));
        assertTrue(some.isPresent() && some.get().isValid());
        some.get().close();
    }

    @Test
    void aWaiterWhoseSessionExpiresQueuesAgainAndHolds() throws Exception {
        String p = path("expire");
        ZkClient a = client();
        ZkClient b = client();
        ZkClient observer = client();
        LockLease held = get(Recipes.using(a).lock(p).acquireAsync());
        CompletableFuture<LockLease> waiting = Recipes.using(b).lock(p).acquireAsync();
        eventually("b queued", () -> children(observer, p).size() == 2);
        long old = b.sessionId();
        backend.expireSession(b);
        eventually("b queued again with its new session", () -> b.sessionId() != old
                && children(observer, p).size() == 2 && ownersAre(observer, p, a.sessionId(), b.sessionId()));
        assertFalse(waiting.isDone());
        held.close();
        LockLease lb = get(waiting);
        assertTrue(lb.isValid());
        assertEquals(b.sessionId(), observer.exists(lb.nodePath()).ephemeralOwner());
        lb.close();
        assertNoWatches(b);
    }

    private static boolean ownersAre(ZkClient c, String p, long... sessions) {
        List<Long> owners = new ArrayList<>();
        for (String child : dev.zkr.recipes.internal.ProtectedNames.sortBySequence(children(c, p))) {
            dev.zkr.client.Stat s = c.exists(p + "/" + child);
            owners.add(s == null ? 0 : s.ephemeralOwner());
        }
        List<Long> want = new ArrayList<>();
        for (long s : sessions) {
            want.add(s);
        }
        return owners.equals(want);
    }

    @Test
    void aServerRestartWhileWaitingChangesNothing() throws Exception {
        String p = path("restart");
        ZkClient a = client(Duration.ofSeconds(30));
        ZkClient b = client(Duration.ofSeconds(30));
        LockLease held = get(Recipes.using(a).lock(p).acquireAsync());
        CompletableFuture<LockLease> waiting = Recipes.using(b).lock(p).acquireAsync();
        eventually("b queued", () -> children(a, p).size() == 2);
        backend.restartServer();
        eventually("both back", () -> a.state().isConnected() && b.state().isConnected());
        assertFalse(waiting.isDone());
        held.close();
        LockLease lb = get(waiting);
        assertTrue(lb.fencingToken() > held.fencingToken());
        lb.close();
        eventually("no node left", () -> children(a, p).isEmpty());
    }

    @Test
    void aLostCreateResponseLeavesNoOrphan() throws Exception {
        String p = path("lost-create");
        ZkClient observer = client();
        LostResponseClient flaky = new LostResponseClient(client()).loseCreates(1, x -> x.contains("/_c_"));
        LockLease l = get(Recipes.using(flaky).lock(p).acquireAsync());
        assertEquals(1, flaky.lost());
        assertEquals(1, children(observer, p).size());
        CompletableFuture<LockLease> other = Recipes.using(observer).lock(p).acquireAsync();
        l.close();
        get(other).close();
        eventually("no node left", () -> children(observer, p).isEmpty());
    }

    @Test
    void aClosedClientFailsTheWaitWithClosed() throws Exception {
        String p = path("closed");
        LockLease held = get(Recipes.using(client()).lock(p).acquireAsync());
        ZkClient b = client();
        CompletableFuture<LockLease> waiting = Recipes.using(b).lock(p).acquireAsync();
        eventually("b queued", () -> children(client(), p).size() == 2);
        b.close();
        try {
            get(waiting);
            fail("acquired on a closed client");
        } catch (ExecutionException e) {
            assertInstanceOf(ZkException.Closed.class, e.getCause());
        }
        held.close();
    }
}
