package dev.zkr.recipes;

import dev.zkr.client.ZkClient;
import dev.zkr.client.ZkException;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link LeasedLock}: a renewing holder keeps the lock, a stalled one is taken over after its lease (judged on the
 * server's time, conservatively on the holder's side), in arrival order; renewals after expiry, cancel, timeout,
 * interrupt, session expiry, bad input.
 */
public abstract class LeasedLockSuite extends RecipeSuite {

    private static final Duration SHORT = Duration.ofMillis(600); // a round trip on a loaded machine stays well within it

    private LeasedLock lock(ZkClient c, String p, Duration lease) {
        return Recipes.using(c).leasedLock(p).lease(lease).build();
    }

    private static TimedNodeLease get(CompletableFuture<TimedLease> f) throws Exception {
        return (TimedNodeLease) f.get(WAIT.toSeconds(), TimeUnit.SECONDS);
    }

    @Test
    void badInputIsRefused() {
        Recipes r = Recipes.using(client());
        assertThrows(IllegalArgumentException.class, () -> r.leasedLock("/x").lease(null));
        assertThrows(IllegalArgumentException.class, () -> r.leasedLock("/x").lease(Duration.ZERO));
        assertThrows(IllegalArgumentException.class, () -> r.leasedLock("/x").lease(Duration.ofMillis(-5)));
        assertThrows(IllegalArgumentException.class, () -> r.leasedLock("/x").lease(Duration.ofMillis(49)));
        assertThrows(IllegalStateException.class, () -> r.leasedLock("/x").build());
        assertThrows(ZkException.InvalidPath.class, () -> r.leasedLock("no-slash"));
    }

    /** A holder that renews within its lease keeps the lock for many leases; its release hands over at once. */
    @Test
    void renewingHolderKeepsTheLock() throws Exception {
        String p = path("renewing");
        Duration lease = Duration.ofSeconds(1); // a renewal's round trip on a loaded machine stays well within it
        TimedLease holder = lock(client(), p, lease).acquire();
        CompletableFuture<TimedLease> waiter = lock(client(), p, lease).acquireAsync();
        for (int i = 0; i < 12; i++) { // 12 × 200 ms: well past two leases
            assertThrows(TimeoutException.class, () -> waiter.get(200, TimeUnit.MILLISECONDS));
            assertTrue(holder.renew(), "renewed");
            assertTrue(holder.isValid());
            assertTrue(holder.remaining().compareTo(Duration.ZERO) > 0);
        }
        holder.close();
        TimedLease next = get(waiter);
        assertTrue(next.fencingToken() > holder.fencingToken());
        assertEquals(LeaseState.RELEASED, holder.state());
        assertFalse(holder.renew(), "a released lease is not renewed");
        next.close();
    }

    /**
     * Curator's open CURATOR-28 (locks with a lease): a holder that stalls without losing its session loses the
     * lock once its lease runs out. It has stopped believing it holds (EXPIRED, told to its listener) before the
     * next holder starts believing; the next token is greater; a late renewal finds the lease LOST.
     */
    @Test
    void curator28_stalledHolderIsTakenOverAfterItsLease() throws Exception {
        String p = path("stalled");
        TimedNodeLease holder = (TimedNodeLease) lock(client(), p, SHORT).acquire();
        CountDownLatch expired = new CountDownLatch(1);
        CountDownLatch lost = new CountDownLatch(1);
        holder.addStateListener((l, s) -> {
            if (s == LeaseState.EXPIRED) {
                expired.countDown();
            } else if (s == LeaseState.LOST) {
                lost.countDown();
            }
        }, null);
        TimedNodeLease next = get(lock(client(), p, SHORT).acquireAsync()); // the holder never renews
        assertTrue(next.heldSinceNanos() > holder.believedUntilNanos(),
                "the next holder believes only after the stalled one stopped");
        assertTrue(expired.await(WAIT.toSeconds(), TimeUnit.SECONDS), "told of the expiry");
        assertEquals(LeaseState.EXPIRED, holder.state());
        assertFalse(holder.isValid());
        assertEquals(Duration.ZERO, holder.remaining());
        assertTrue(next.isValid());
        assertTrue(next.fencingToken() > holder.fencingToken(), "a late write of the stalled holder is refusable");
        assertFalse(holder.renew(), "taken over: the renewal finds the node gone");
        assertEquals(LeaseState.LOST, holder.state());
        assertTrue(lost.await(WAIT.toSeconds(), TimeUnit.SECONDS), "told of the loss");
        holder.close(); // harmless
        assertTrue(next.isValid(), "the stalled holder's close does not touch the next holder's node");
        next.close();
    }

    /** Nobody waiting: an expired lease stays the holder's, and a renewal makes it HELD again. */
    @Test
    void expiredLeaseIsRenewedWhenNobodyTookOver() throws Exception {
        String p = path("renew-expired");
        TimedLease holder = lock(client(), p, SHORT).acquire();
        CountDownLatch expired = new CountDownLatch(1);
        CountDownLatch heldAgain = new CountDownLatch(1);
        holder.addStateListener((l, s) -> {
            if (s == LeaseState.EXPIRED) {
                expired.countDown();
            } else if (s == LeaseState.HELD) {
                heldAgain.countDown();
            }
        }, null);
        assertTrue(expired.await(WAIT.toSeconds(), TimeUnit.SECONDS));
        assertFalse(holder.isValid());
        assertTrue(holder.renew());
        assertEquals(LeaseState.HELD, holder.state());
        assertTrue(holder.isValid());
        assertTrue(heldAgain.await(WAIT.toSeconds(), TimeUnit.SECONDS), "told it holds again");
        holder.close();
    }

    /**
     * The holder counts its lease from when the renewal was sent, not answered: with the answer held back 400 ms,
     * it believes at most the lease less those 400 ms.
     */
    @Test
    void holderCountsTheLeaseFromWhenTheRenewalWasSent() throws Exception {
        String p = path("conservative");
        Duration lease = Duration.ofSeconds(2);
        LostResponseClient slow = new LostResponseClient(client());
        TimedLease holder = lock(slow, p, lease).acquire();
        CompletableFuture<Void> gate = new CompletableFuture<>();
        slow.delayNextSetDataResponse(gate);
        long before = System.nanoTime();
        CompletableFuture<Boolean> renewed = holder.renewAsync();
        CompletableFuture.delayedExecutor(400, TimeUnit.MILLISECONDS).execute(() -> gate.complete(null)); // a slow answer
        assertTrue(renewed.get(WAIT.toSeconds(), TimeUnit.SECONDS));
        long answered = System.nanoTime();
        Duration left = holder.remaining();
        assertTrue(answered - before >= TimeUnit.MILLISECONDS.toNanos(400));
        assertTrue(left.compareTo(lease.minusMillis(400)) <= 0, "believes " + left + " of " + lease);
        assertTrue(left.compareTo(lease.minus(TimedNodeLease.drift(lease))) < 0, "less the drift allowance");
        holder.close();
    }

    /** Stalled holders are taken over one after the other, in arrival order, only by the waiter next in line. */
    @Test
    void takeoversFollowArrivalOrder() throws Exception {
        String p = path("order");
        ZkClient observer = client();
        TimedLease first = lock(client(), p, SHORT).acquire();
        CompletableFuture<TimedLease> second = lock(client(), p, SHORT).acquireAsync();
        eventually("second queued", () -> children(observer, p).size() == 2);
        CompletableFuture<TimedLease> third = lock(client(), p, SHORT).acquireAsync();
        eventually("third queued", () -> children(observer, p).size() == 3);
        TimedLease s = get(second);
        assertFalse(third.isDone(), "the third waits for the second, not for the first's lease");
        assertFalse(first.isValid());
        TimedLease t = get(third); // the second stalls too
        assertFalse(s.isValid());
        assertTrue(first.fencingToken() < s.fencingToken() && s.fencingToken() < t.fencingToken());
        assertEquals(List.of(t.nodePath().substring(p.length() + 1)), children(observer, p));
        t.close();
    }

    /**
     * No herd: a renewal wakes only the waiter right behind the holder (it reads the holder again); the waiters
     * further back send nothing.
     */
    @Test
    void renewalsWakeOnlyTheNextWaiter() throws Exception {
        String p = path("no-herd");
        ZkClient observer = client();
        Duration lease = Duration.ofSeconds(30); // long: no takeover probe within the test
        TimedLease holder = lock(client(), p, lease).acquire();
        List<CountingClient> waiters = new java.util.ArrayList<>();
        List<CompletableFuture<TimedLease>> acquires = new java.util.ArrayList<>();
        for (int i = 0; i < 3; i++) {
            CountingClient c = new CountingClient(client());
            waiters.add(c);
            acquires.add(lock(c, p, lease).acquireAsync());
            int queued = i + 2;
            eventually("waiter " + i + " queued", () -> children(observer, p).size() == queued);
        }
        eventually("each waiter watches one node", () -> waiters.stream().allMatch(c -> c.watchedPaths().size() == 1));
        long nextBefore = waiters.get(0).requests();
        long[] restBefore = {waiters.get(1).requests(), waiters.get(2).requests()};
        for (int i = 0; i < 3; i++) {
            assertTrue(holder.renew());
        }
        eventually("the next waiter read the holder again", () -> waiters.get(0).requests() > nextBefore);
        long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(200); // a negative check: watch a bounded while
        while (System.nanoTime() - end < 0) {
            assertEquals(restBefore[0], waiters.get(1).requests(), "the second waiter was woken");
            assertEquals(restBefore[1], waiters.get(2).requests(), "the third waiter was woken");
            Thread.sleep(10); // polling a negative condition for a bounded while, not synchronisation
        }
        assertFalse(acquires.stream().anyMatch(CompletableFuture::isDone));
        holder.close();
        for (CompletableFuture<TimedLease> a : acquires) {
            get(a).close();
        }
    }

    /** A timed-out, cancelled or interrupted wait removes its node and its watch; the holder is untouched. */
    @Test
    void givingUpRemovesTheQueuedNode() throws Exception {
        String p = path("give-up");
        ZkClient observer = client();
        ZkClient waiterClient = client();
        TimedLease holder = lock(client(), p, Duration.ofSeconds(30)).acquire();
        LeasedLock waiterLock = lock(waiterClient, p, Duration.ofSeconds(30));
        assertEquals(Optional.empty(), waiterLock.tryAcquire(Duration.ofMillis(100)));
        eventually("timed-out node gone", () -> children(observer, p).size() == 1);
        assertEquals(Optional.empty(), waiterLock.tryAcquireAsync(Duration.ofMillis(100))
                .get(WAIT.toSeconds(), TimeUnit.SECONDS));
        eventually("async timed-out node gone", () -> children(observer, p).size() == 1);
        CompletableFuture<TimedLease> cancelled = waiterLock.acquireAsync();
        eventually("queued", () -> children(observer, p).size() == 2);
        cancelled.cancel(false);
        eventually("cancelled node gone", () -> children(observer, p).size() == 1);
        CompletableFuture<Throwable> outcome = new CompletableFuture<>();
        Thread waiter = new Thread(() -> {
            try {
                waiterLock.acquire();
                outcome.complete(null);
            } catch (Throwable t) {
                outcome.complete(t);
            }
        });
        waiter.start();
        eventually("queued again", () -> children(observer, p).size() == 2);
        waiter.interrupt();
        Throwable t = outcome.get(WAIT.toSeconds(), TimeUnit.SECONDS);
        assertTrue(t instanceof ZkException.Interrupted, String.valueOf(t));
        eventually("interrupted node gone", () -> children(observer, p).size() == 1);
        assertNoWatches(waiterClient);
        assertTrue(holder.isValid());
        holder.close();
        eventually("all gone", () -> children(observer, p).isEmpty());
    }

    /** The holder's session expires: its lease is LOST at once and the waiter holds without waiting for the lease. */
    @Test
    void sessionExpiryEndsTheLease() throws Exception {
        String p = path("expiry");
        ZkClient holderClient = client();
        TimedLease holder = lock(holderClient, p, Duration.ofSeconds(60)).acquire();
        CompletableFuture<TimedLease> waiter = lock(client(), p, Duration.ofSeconds(60)).acquireAsync();
        backend.expireSession(holderClient);
        TimedLease next = get(waiter);
        eventually("holder lost", () -> holder.state() == LeaseState.LOST);
        assertFalse(holder.isValid());
        assertFalse(holder.renew());
        assertTrue(next.isValid());
        next.close();
    }
}
