package dev.zkr.samples;

import dev.zkr.recipes.DistributedCounter;
import dev.zkr.recipes.Recipes;
import dev.zkr.testkit.TestEnsemble;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A distributed counter: four clients increment the same counter concurrently (increments do not conflict: each
 * is one atomic multi that adds a sequential child, see zk-recipes/README.md). The final value is the number of
 * increments, and every increment got a different result, so the counter also hands out unique ids.
 */
public final class CounterSample {

    private static final int CLIENTS = 4;
    private static final int INCREMENTS = 50;

    public static void main(String[] args) throws InterruptedException {
        Samples.quietLogs();
        try (TestEnsemble ensemble = TestEnsemble.builder().servers(1).start()) {
            Set<Long> results = ConcurrentHashMap.newKeySet();
            List<Thread> threads = new ArrayList<>();
            for (int c = 1; c <= CLIENTS; c++) {
                DistributedCounter counter = Recipes.using(ensemble.newClient()).counter("/counters/orders");
                Thread t = new Thread(() -> {
                    for (int i = 0; i < INCREMENTS; i++) {
                        results.add(counter.incrementAndGet());
                    }
                    Samples.say("did %d increments", INCREMENTS);
                }, "client-" + c);
                threads.add(t);
                t.start();
            }
            for (Thread t : threads) {
                t.join();
            }
            DistributedCounter counter = Recipes.using(ensemble.newClient()).counter("/counters/orders");
            Samples.say("counter = %d, distinct results = %d (expected %d)", counter.get(), results.size(),
                    CLIENTS * INCREMENTS);
            if (counter.get() != CLIENTS * INCREMENTS || results.size() != CLIENTS * INCREMENTS) {
                throw new IllegalStateException("counter lost or repeated increments");
            }
            Samples.say("compareAndSet(%d, 0) -> %s; now %d", counter.get(),
                    counter.compareAndSet(counter.get(), 0), counter.get());
        }
    }
}
