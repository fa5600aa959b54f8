package dev.zkr.recipes;

import dev.zkr.client.CreateMode;
import dev.zkr.client.Op;
import dev.zkr.client.OpResult;
import dev.zkr.client.Parents;
import dev.zkr.client.Stat;
import dev.zkr.client.ZkClient;
import dev.zkr.client.ZkException;
import dev.zkr.client.ZkPaths;
import dev.zkr.recipes.counter.CounterGate;
import dev.zkr.recipes.counter.CounterState;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * DistributedCounter: linearizable, distinct results under contention, CAS racing increments (checked against a
 * sequential model), lost responses, a gate holder that crashes or expires, session expiry, server restart, and the
 * server behaviour the design rests on (cversion on create and delete).
 */
public abstract class CounterSuite extends RecipeSuite {

    private static final long CAS_STEP = 1000;

    @Test
    void concurrentIncrementsAreDistinctAndComplete() throws Exception {
        String p = path("c");
        int clients = 8;
        int each = 25;
        Set<Long> seen = ConcurrentHashMap.newKeySet();
        List<Future<?>> fs = new ArrayList<>();
        long start = System.nanoTime();
        for (int i = 0; i < clients; i++) {
            DistributedCounter counter = Recipes.using(client()).counter(p);
            fs.add(pool.submit(() -> {
                for (int j = 0; j < each; j++) {
                    assertTrue(seen.add(counter.incrementAndGet()), "distinct");
                }
                return null;
            }));
        }
        for (Future<?> f : fs) {
            f.get(60, TimeUnit.SECONDS);
        }
        double secs = (System.nanoTime() - start) / 1e9;
        System.out.printf("counter: %d increments by %d clients in %.2fs = %.0f/s%n",
                clients * each, clients, secs, clients * each / secs);
        assertEquals(clients * each, seen.size());
        ZkClient observer = client();
        assertEquals(clients * each, Recipes.using(observer).counter(p).get());
        assertEquals(range(1, clients * each), seen);
        assertTrue(children(observer, p + "/" + DistributedCounter.VALUE).size() <= clients,
                "each client keeps at most its last child");
    }

    @Test
    void addCompareAndSetAndGet() {
        DistributedCounter c = Recipes.using(client()).counter(path("cas"));
        assertEquals(0, c.get());
        assertEquals(5, c.addAndGet(5));
        assertFalse(c.compareAndSet(4, 10));
        assertTrue(c.compareAndSet(5, 10));
        DistributedCounter other = Recipes.using(client()).counter(path("cas"));
        assertEquals(11, other.incrementAndGet());
        assertFalse(c.compareAndSet(10, 20), "a stale cached value never makes CAS succeed");
        assertTrue(c.compareAndSet(11, 20));
        assertEquals(19, other.decrementAndGet());
        c.set(-3);
        assertEquals(-3, other.get());
        assertEquals(61, c.addAndGet(DistributedCounter.MAX_FAST_DELTA));
        assertEquals(61 + 65, other.addAndGet(65));
        assertEquals(126, c.addAndGet(0));
        assertEquals(126 - 1000, other.addAndGet(-1000));
        assertEquals(-873, c.incrementAndGet());
        assertTrue(c.compareAndSet(-873, Long.MAX_VALUE - 1));
        assertEquals(Long.MAX_VALUE, other.incrementAndGet());
    }

    @Test
    void casRacingIncrementsIsLinearizable() throws Exception {
        String p = path("race");
        int incrementers = 4;
        int each = 40;
        long t0 = System.nanoTime();
        List<HistoryOp> history = Collections.synchronizedList(new ArrayList<>());
        CountDownLatch go = new CountDownLatch(1);
        AtomicBoolean done = new AtomicBoolean();
        List<Future<?>> fs = new ArrayList<>();
        for (int i = 0; i < incrementers; i++) {
            DistributedCounter c = Recipes.using(client()).counter(p);
            fs.add(pool.submit(() -> {
                go.await();
                for (int j = 0; j < each; j++) {
                    long s = System.nanoTime() - t0;
                    long v = c.incrementAndGet();
                    history.add(new HistoryOp(Kind.INC, v, s, System.nanoTime() - t0));
                }
                return null;
            }));
        }
        DistributedCounter cas = Recipes.using(client()).counter(p);
        Future<?> casser = pool.submit(() -> {
            go.await();
            for (int round = 0; round < 40 && !done.get(); round++) {
                long s = System.nanoTime() - t0;
                long v = cas.get();
                long m = System.nanoTime() - t0;
                history.add(new HistoryOp(Kind.GET, v, s, m));
                boolean ok = cas.compareAndSet(v, v + CAS_STEP);
                long e = System.nanoTime() - t0;
                history.add(ok ? new HistoryOp(Kind.CAS_OK, v + CAS_STEP, m, e)
                        : new HistoryOp(Kind.CAS_FAIL, v, m, e));
            }
            return null;
        });
        go.countDown();
        for (Future<?> f : fs) {
            f.get(60, TimeUnit.SECONDS);
        }
        done.set(true);
        casser.get(60, TimeUnit.SECONDS);
        long successes = history.stream().filter(h -> h.kind == Kind.CAS_OK).count();
        long end = Recipes.using(client()).counter(p).get();
        assertEquals(incrementers * each + successes * CAS_STEP, end, "no lost or doubled update");
        assertTrue(cas.compareAndSet(end, end + CAS_STEP), "alone, CAS with the current value succeeds");
        System.out.printf("counter race: %d increments, %d of %d CAS succeeded%n", incrementers * each, successes,
                history.stream().filter(h -> h.kind == Kind.CAS_OK || h.kind == Kind.CAS_FAIL).count());
        checkLinearizable(new ArrayList<>(history));
    }

    @Test
    void lostResponsesAreResolvedNotRepeated() {
        ZkClient base = client();
        LostResponseClient flaky = new LostResponseClient(base).loseCreates(1, x -> true);
        DistributedCounter c = Recipes.using(flaky).counter(path("lost"));
        assertEquals(1, c.incrementAndGet()); // the create's response is lost
        assertEquals(1, flaky.lost());
        assertEquals(1, Recipes.using(client()).counter(path("lost")).get());
        assertEquals(2, c.incrementAndGet());
    }

    @Test
    void lostIncrementResponsesAreFoundNotRepeated() {
        String p = path("lostinc");
        LostResponseClient flaky = new LostResponseClient(client());
        DistributedCounter c = Recipes.using(flaky).counter(p);
        DistributedCounter other = Recipes.using(client()).counter(p);
        assertEquals(1, c.incrementAndGet());
        flaky.loseMultis(1);
        assertEquals(2, c.incrementAndGet()); // applied, response lost: found by its child
        assertEquals(1, flaky.lost());
        assertEquals(2, other.get());
        assertEquals(3, other.incrementAndGet());
        flaky.loseMultis(1);
        assertEquals(8, c.addAndGet(5));
        assertEquals(2, flaky.lost());
        assertEquals(9, other.incrementAndGet());
        assertEquals(10, c.incrementAndGet());
        assertEquals(10, other.get());
    }

    @Test
    void lostWriteResponsesAreResolvedNotRepeated() {
        String p = path("lostcas");
        LostResponseClient flaky = new LostResponseClient(client());
        DistributedCounter c = Recipes.using(flaky).counter(p);
        DistributedCounter other = Recipes.using(client()).counter(p);
        assertEquals(1, other.incrementAndGet());
        flaky.loseMultis(1, CounterSuite::isWrite);
        c.set(10); // the write's response is lost
        assertEquals(1, flaky.lost());
        assertEquals(10, other.get());
        assertEquals(11, other.incrementAndGet());
        flaky.loseMultis(1, CounterSuite::isGateAcquire);
        assertTrue(c.compareAndSet(11, 20)); // the gate's response is lost
        assertEquals(2, flaky.lost());
        flaky.loseMultis(2);
        assertTrue(c.compareAndSet(20, 30)); // both lost
        assertEquals(4, flaky.lost());
        flaky.loseMultis(1, CounterSuite::isWrite);
        assertEquals(25, c.addAndGet(-5));
        assertEquals(5, flaky.lost());
        assertFalse(c.compareAndSet(30, 40));
        assertEquals(26, other.incrementAndGet());
        assertEquals(26, c.get());
        assertNull(client().exists(p + "/" + CounterGate.NAME), "the gate is released");
    }

    @Test
    void clientCrashWhileHoldingTheGateLetsOthersProceed() throws Exception {
        gateHolderEnds(false);
    }

    @Test
    void sessionExpiryWhileHoldingTheGateLetsOthersProceed() throws Exception {
        gateHolderEnds(true);
    }

    /** A CAS client stops (crash or expiry) between taking the gate and writing: the others wait, then go on. */
    private void gateHolderEnds(boolean expire) throws Exception {
        String p = path("crash");
        DistributedCounter c = Recipes.using(client()).counter(p);
        DistributedCounter casser = Recipes.using(client()).counter(p);
        assertEquals(1, c.incrementAndGet());
        ZkClient holder = client();
        new CounterGate(holder, p).acquire(); // and then it hangs: it never writes
        Future<Long> blocked = pool.submit(c::incrementAndGet);
        Future<Boolean> blockedCas = pool.submit(() -> casser.compareAndSet(1, 100));
        assertThrows(TimeoutException.class, () -> blocked.get(300, TimeUnit.MILLISECONDS),
                "an increment waits while the gate is held");
        assertFalse(blockedCas.isDone(), "a CAS waits while the gate is held");
        if (expire) {
            backend.expireSession(holder);
        } else {
            holder.close();
        }
        long inc = blocked.get(WAIT.toSeconds(), TimeUnit.SECONDS);
        boolean casOk = blockedCas.get(WAIT.toSeconds(), TimeUnit.SECONDS);
        // either order is fine, but the outcome must match it
        if (casOk) {
            assertEquals(101, inc);
            assertEquals(101, c.get());
        } else {
            assertEquals(2, inc);
            assertEquals(2, c.get());
        }
        assertEquals(c.get() + 1, casser.incrementAndGet());
        assertNull(client().exists(p + "/" + CounterGate.NAME), "no gate left");
    }

    /**
     * Why the gate has a holder child: a write prepared under a gate whose session then expired, and sent from the
     * client's new session after others incremented, must not apply.
     */
    @Test
    void aWriteFromANewSessionCannotUseTheOldGate() {
        String p = path("stale");
        ZkClient x = client();
        DistributedCounter other = Recipes.using(client()).counter(p);
        assertEquals(1, other.incrementAndGet());
        CounterGate gate = new CounterGate(x, p);
        CounterGate.Held held = gate.acquire();
        int version = x.getData(p + "/" + DistributedCounter.VALUE).stat().version();
        long old = x.sessionId();
        backend.expireSession(x);
        eventually("a new session", () -> x.sessionId() != old && x.state().isConnected());
        assertEquals(2, other.incrementAndGet()); // removes the orphaned gate
        List<Op> write = new ArrayList<>();
        write.add(Op.setData(p + "/" + DistributedCounter.VALUE, CounterState.encode(100, 0, 1), version));
        write.addAll(gate.releaseOps(held));
        assertThrows(ZkException.NoNode.class, () -> x.multi(write));
        assertEquals(2, other.get());
        assertEquals(3, Recipes.using(x).counter(p).incrementAndGet());
    }

    @Test
    void incrementerSessionExpiryAndServerRestart() {
        String p = path("expire");
        ZkClient a = client();
        DistributedCounter c = Recipes.using(a).counter(p);
        DistributedCounter other = Recipes.using(client()).counter(p);
        assertEquals(1, c.incrementAndGet());
        assertEquals(2, c.incrementAndGet());
        long old = a.sessionId();
        backend.expireSession(a);
        eventually("a new session", () -> a.sessionId() != old && a.state().isConnected());
        assertEquals(3, c.incrementAndGet()); // its earlier child went with the old session
        assertEquals(4, other.incrementAndGet());
        assertTrue(c.compareAndSet(4, 40));
        backend.restartServer();
        assertEquals(41, c.incrementAndGet());
        assertEquals(42, other.incrementAndGet());
        assertEquals(42, c.get());
        assertEquals(41, other.decrementAndGet());
    }

    /**
     * The server behaviour the counter relies on, checked on each backend: sequence numbers count creates (a delete
     * or a session's end does not move them), and the Stat gives the number of creates: cversion counts creates and
     * deletes on both servers (reported as {@code 2 * creates - numChildren}).
     */
    @Test
    void sequenceNumbersCountCreatesAndStatGivesThem() {
        ZkClient a = client();
        ZkClient b = client();
        String p = path("cv");
        a.create(p, new byte[0], CreateMode.PERSISTENT, Parents.CONTAINER);
        List<String> created = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            created.add(a.create(p + "/a-", new byte[0], CreateMode.PERSISTENT_SEQUENTIAL));
        }
        for (int i = 0; i < 3; i++) {
            assertEquals(i, ZkPaths.sequenceOf(created.get(i)), "the sequence number is the number of creates before");
        }
        assertEquals(3, a.exists(p).cversion());
        a.delete(created.get(1), -1);
        int cversion = a.exists(p).cversion();
        System.out.printf("%s: cversion after 3 creates and 1 delete = %d%n", getClass().getSimpleName(), cversion);
        assertEquals(4, cversion, "cversion counts the delete too");
        assertEquals(3, CounterState.creates(a.exists(p)));
        String eph = b.create(p + "/e-", new byte[0], CreateMode.EPHEMERAL_SEQUENTIAL);
        assertEquals(3, ZkPaths.sequenceOf(eph), "a delete does not move the sequence");
        b.close();
        eventually("ephemeral gone", () -> a.exists(eph) == null);
        assertEquals(4, CounterState.creates(a.exists(p)), "a session's end is a delete");
        a.setData(p, new byte[] {1}, -1);
        assertEquals(4, CounterState.creates(a.getData(p).stat()), "setData creates nothing");

        // the increment multi: check, gate test (create + delete elsewhere), consecutive sequential creates
        String gateParent = path("cvgate");
        a.create(gateParent, new byte[0], CreateMode.PERSISTENT);
        int version = a.exists(p).version();
        List<OpResult> r = a.multi(List.of(Op.check(p, version),
                Op.create(gateParent + "/g", new byte[0], CreateMode.PERSISTENT), Op.delete(gateParent + "/g", -1),
                Op.create(p + "/b-", new byte[0], CreateMode.EPHEMERAL_SEQUENTIAL),
                Op.create(p + "/b-", new byte[0], CreateMode.EPHEMERAL_SEQUENTIAL),
                Op.delete(created.get(2), -1)));
        assertEquals(4, ZkPaths.sequenceOf(((OpResult.CreateResult) r.get(3)).path()));
        assertEquals(5, ZkPaths.sequenceOf(((OpResult.CreateResult) r.get(4)).path()));
        Stat after = a.exists(p);
        assertEquals(6, CounterState.creates(after));
        assertNull(a.exists(gateParent + "/g"));

        a.create(gateParent + "/g", new byte[0], CreateMode.PERSISTENT);
        ZkException held = assertThrows(ZkException.NodeExists.class, () -> a.multi(List.of(Op.check(p, version),
                Op.create(gateParent + "/g", new byte[0], CreateMode.PERSISTENT), Op.delete(gateParent + "/g", -1),
                Op.create(p + "/b-", new byte[0], CreateMode.EPHEMERAL_SEQUENTIAL))));
        assertEquals(ZkException.Code.NODE_EXISTS, ((OpResult.ErrorResult) held.multiResults().get(1)).code());
        assertEquals(after, a.exists(p), "a failed multi changes nothing");
    }

    /** Throughput with 8 clients, not a timed test: {@code -Dcounter.throughput=<seconds>}. */
    @Test
    @EnabledIfSystemProperty(named = "counter.throughput", matches = "\\d+")
    void throughput() throws Exception {
        long seconds = Long.getLong("counter.throughput");
        String p = path("tp");
        int clients = 8;
        AtomicLong total = new AtomicLong();
        List<DistributedCounter> counters = new ArrayList<>();
        for (int i = 0; i < clients; i++) {
            counters.add(Recipes.using(client()).counter(p));
        }
        counters.get(0).incrementAndGet(); // create it
        long start = System.nanoTime();
        long until = start + TimeUnit.SECONDS.toNanos(seconds);
        List<Future<?>> fs = new ArrayList<>();
        for (DistributedCounter c : counters) {
            fs.add(pool.submit(() -> {
                while (System.nanoTime() < until) {
                    c.incrementAndGet();
                    total.incrementAndGet();
                }
                return null;
            }));
        }
        for (Future<?> f : fs) {
            f.get(seconds + 60, TimeUnit.SECONDS);
        }
        double secs = (System.nanoTime() - start) / 1e9;
        System.out.printf("counter throughput (%s): %d increments by %d clients in %.2fs = %.0f/s%n",
                getClass().getSimpleName(), total.get(), clients, secs, total.get() / secs);
        assertEquals(total.get() + 1, counters.get(0).get());
    }

    // ---- helpers ------------------------------------------------------------------------------------------------

    private static boolean isWrite(List<Op> ops) {
        return ops.stream().anyMatch(o -> o instanceof Op.SetData);
    }

    private static boolean isGateAcquire(List<Op> ops) {
        return ops.stream().anyMatch(o -> o instanceof Op.Create c && c.mode() == CreateMode.EPHEMERAL
                && ZkPaths.name(c.path()).startsWith(CounterGate.HOLDER_PREFIX));
    }

    private static Set<Long> range(long from, long to) {
        Set<Long> s = new HashSet<>();
        for (long v = from; v <= to; v++) {
            s.add(v);
        }
        return s;
    }

    enum Kind { INC, CAS_OK, CAS_FAIL, GET }

    /** One completed operation: its kind, value (new value; CAS_FAIL: the expected value; GET: read) and interval. */
    record HistoryOp(Kind kind, long value, long start, long end) {
    }

    /**
     * Checks a history of increments, CAS(v, v + 1000) and gets against a sequential counter. All writes raise the
     * value, so their new values sorted are the only possible order: it must be a chain of +1 (increments) and
     * +1000 (successful CAS, whose expected value is the previous link), consistent with real time. A get must
     * return a value the counter held at some point of its interval, and a failed CAS must have had a point in its
     * interval where the value was not its expected value.
     */
    static void checkLinearizable(List<HistoryOp> history) {
        List<HistoryOp> writes = new ArrayList<>(history.stream()
                .filter(h -> h.kind == Kind.INC || h.kind == Kind.CAS_OK).toList());
        writes.sort((x, y) -> Long.compare(x.value, y.value));
        List<Long> chain = new ArrayList<>();
        chain.add(0L);
        for (HistoryOp w : writes) {
            long step = w.value - chain.get(chain.size() - 1);
            assertEquals(w.kind == Kind.INC ? 1 : CAS_STEP, step, "the write before " + w + " is its predecessor");
            chain.add(w.value);
        }
        for (HistoryOp x : writes) {
            for (HistoryOp y : writes) {
                if (x.end < y.start) {
                    assertTrue(x.value < y.value, x + " finished before " + y + " started");
                }
            }
        }
        HistoryOp initial = new HistoryOp(Kind.INC, 0, Long.MIN_VALUE, Long.MIN_VALUE);
        for (HistoryOp h : history) {
            if (h.kind != Kind.GET && h.kind != Kind.CAS_FAIL) {
                continue;
            }
            int i = chain.indexOf(h.value);
            if (i < 0) {
                assertEquals(Kind.CAS_FAIL, h.kind, "a get returns a value the counter had: " + h);
                continue; // the counter never held the expected value: failing is right
            }
            HistoryOp producer = i == 0 ? initial : writes.get(i - 1);
            HistoryOp next = i < writes.size() ? writes.get(i) : null;
            if (h.kind == Kind.GET) {
                assertTrue(producer.start < h.end, h + " read a value written after it ended");
                assertTrue(next == null || next.end > h.start, h + " read a value overwritten before it began");
            } else {
                boolean heldThroughout = producer.end < h.start && (next == null || next.start > h.end);
                assertFalse(heldThroughout, h + " failed though the value was its expected value throughout");
            }
        }
    }
}
