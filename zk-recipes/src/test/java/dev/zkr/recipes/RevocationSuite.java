package dev.zkr.recipes;

import dev.zkr.client.ZkClient;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Cooperative revocation of lock, read/write lock and semaphore leases: the request is written into the holder's
 * node, the holder's listener runs once per request, a holder that ignores it keeps the lock, a request on a free
 * lock does nothing, and fencing tokens still increase.
 */
public abstract class RevocationSuite extends RecipeSuite {

    @Test
    void aCooperativeHolderReleasesAndTheNextHolderHasANewerToken() throws Exception {
        String lockPath = path("lock");
        AtomicInteger asked = new AtomicInteger();
        LockLease held = Recipes.using(client()).lock(lockPath).acquire(l -> {
            asked.incrementAndGet();
            l.close(); // abort and release
        });
        DistributedLock other = Recipes.using(client()).lock(lockPath);
        Future<LockLease> waiting = pool.submit(() -> other.acquire());
        eventually("the waiter queued", () -> children(client(), lockPath).size() == 2);
        assertTrue(other.requestRevocation(), "the holder was asked");
        LockLease next = waiting.get(20, TimeUnit.SECONDS);
        assertEquals(1, asked.get());
        assertEquals(LeaseState.RELEASED, held.state());
        assertTrue(next.fencingToken() > held.fencingToken(), "fencing tokens still increase");
        next.close();
    }

    @Test
    void aHolderThatIgnoresTheRequestKeepsTheLockAndIsToldOncePerRequest() {
        String lockPath = path("ignore");
        ZkClient holder = client();
        AtomicInteger asked = new AtomicInteger();
        LockLease held = Recipes.using(holder).lock(lockPath).acquire(l -> asked.incrementAndGet());
        DistributedLock other = Recipes.using(client()).lock(lockPath);
        assertTrue(other.requestRevocation());
        eventually("told once", () -> asked.get() == 1);
        assertTrue(held.isValid(), "ignoring the request keeps the lock");
        assertTrue(other.tryAcquire(Duration.ofMillis(200)).isEmpty());
        assertTrue(other.requestRevocation());
        eventually("told once more", () -> asked.get() == 2);
        assertTrue(held.isValid());
        held.close();
        assertEquals(2, asked.get());
        assertNoWatches(holder);
    }

    @Test
    void aRequestOnAFreeLockIsANoOp() {
        String lockPath = path("free");
        ZkClient c = client();
        DistributedLock lock = Recipes.using(c).lock(lockPath);
        assertFalse(lock.requestRevocation());
        assertTrue(children(c, lockPath).isEmpty());
        AtomicInteger asked = new AtomicInteger();
        LockLease lease = lock.acquire(l -> asked.incrementAndGet());
        lease.close();
        assertFalse(lock.requestRevocation(), "released: nobody to ask");
        assertEquals(0, asked.get());
    }

    @Test
    void theRequestOutlivesTheRequesterAndIsDeliveredOnceAcrossTheHoldersReconnect() throws Exception {
        String lockPath = path("durable");
        ZkClient holder = client(Duration.ofSeconds(30));
        AtomicInteger asked = new AtomicInteger();
        LockLease held = Recipes.using(holder).lock(lockPath).acquire(l -> asked.incrementAndGet());
        ZkClient requester = client();
        assertTrue(Recipes.using(requester).lock(lockPath).requestRevocation());
        requester.close(); // the requester dies; the request stays on the holder's node
        assertEquals("revoke", new String(holder.getData(held.nodePath()).data(), StandardCharsets.UTF_8));
        eventually("told", () -> asked.get() == 1);
        backend.restartServer();
        eventually("held again after the reconnect", () -> held.isValid());
        // the re-read after RECONNECTED sees the same request (same version): not told again; a new one is
        assertTrue(Recipes.using(client()).lock(lockPath).requestRevocation());
        eventually("told of the second request", () -> asked.get() >= 2);
        held.close();
        assertEquals(2, asked.get(), "once per request");
    }

    @Test
    void aRequestMadeBeforeTheNodeHoldsIsDeliveredWhenItDoes() throws Exception {
        String lockPath = path("early");
        ZkClient observer = client();
        LockLease first = Recipes.using(client()).lock(lockPath).acquire();
        AtomicInteger asked = new AtomicInteger();
        Future<LockLease> second = pool.submit(() -> Recipes.using(client()).lock(lockPath)
                .acquire(l -> asked.incrementAndGet()));
        eventually("second queued", () -> children(observer, lockPath).size() == 2);
        first.close();
        eventually("only the second is left", () -> children(observer, lockPath).size() == 1);
        // the requester sees the second's node first, possibly before the second knows it holds
        assertTrue(Recipes.using(observer).lock(lockPath).requestRevocation());
        LockLease lease = second.get(20, TimeUnit.SECONDS);
        eventually("told", () -> asked.get() == 1);
        lease.close();
    }

    @Test
    void theWriteSideAsksEveryReadHolderAndTheReadSideTheWriter() throws Exception {
        String lockPath = path("rw");
        AtomicInteger readersAsked = new AtomicInteger();
        ReadWriteLock rw1 = Recipes.using(client()).readWriteLock(lockPath);
        ReadWriteLock rw2 = Recipes.using(client()).readWriteLock(lockPath);
        ReadWriteLock rw3 = Recipes.using(client()).readWriteLock(lockPath);
        LockLease r1 = rw1.readLock().acquire(l -> {
            readersAsked.incrementAndGet();
            l.close();
        });
        LockLease r2 = rw2.readLock().acquire(l -> {
            readersAsked.incrementAndGet();
            l.close();
        });
        assertFalse(rw3.readLock().requestRevocation(), "no writer holds: nobody blocks a reader");
        Future<LockLease> writer = pool.submit(() -> rw3.writeLock().acquire());
        eventually("writer queued", () -> children(client(), lockPath).size() == 3);
        assertTrue(rw3.writeLock().requestRevocation());
        LockLease w = writer.get(20, TimeUnit.SECONDS);
        assertEquals(2, readersAsked.get(), "both read holders were asked");
        assertEquals(LeaseState.RELEASED, r1.state());
        assertEquals(LeaseState.RELEASED, r2.state());
        w.close();
        AtomicInteger writerAsked = new AtomicInteger();
        LockLease w2 = rw3.writeLock().acquire(l -> writerAsked.incrementAndGet());
        assertTrue(rw1.readLock().requestRevocation(), "the read side asks the writer");
        eventually("the writer was told", () -> writerAsked.get() == 1);
        w2.close();
    }

    @Test
    void semaphoreLeasesAreRevocableToo() throws Exception {
        String semPath = path("sem");
        AtomicInteger asked = new AtomicInteger();
        Semaphore a = Recipes.using(client()).semaphore(semPath).permits(2).build();
        Semaphore b = Recipes.using(client()).semaphore(semPath).permits(2).build();
        SemaphoreLease la = a.acquire(1, l -> {
            asked.incrementAndGet();
            l.close();
        });
        SemaphoreLease lb = b.acquire(1, l -> asked.incrementAndGet()); // ignores it
        Future<SemaphoreLease> waiting = pool.submit(() -> b.acquire());
        eventually("waiter queued", () -> children(client(), semPath).size() == 3);
        assertTrue(b.requestRevocation());
        SemaphoreLease lc = waiting.get(20, TimeUnit.SECONDS);
        eventually("both holders told", () -> asked.get() == 2);
        assertEquals(LeaseState.RELEASED, la.state());
        assertTrue(lb.isValid());
        lb.close();
        lc.close();
    }
}
