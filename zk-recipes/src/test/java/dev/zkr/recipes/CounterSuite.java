package dev.zkr.recipes;

import dev.zkr.client.ZkClient;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** DistributedCounter: linearizable, distinct results under contention, CAS, lost responses. */
public abstract class CounterSuite extends RecipeSuite {

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
        assertEquals(clients * each, Recipes.using(client()).counter(p).get());
        Set<Long> expected = new HashSet<>();
        for (long v = 1; v <= clients * each; v++) {
            expected.add(v);
        }
        assertEquals(expected, seen);
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
}
