package dev.zkr.samples;

import dev.zkr.recipes.LockLease;
import dev.zkr.recipes.ReadWriteLock;
import dev.zkr.recipes.Recipes;
import dev.zkr.testkit.TestEnsemble;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A shared read/write lock: three readers hold the read side together; a writer queued behind them waits until
 * they are all gone, and a reader arriving after the writer waits for the writer (arrival order, so writers do not
 * starve).
 */
public final class ReadWriteLockSample {

    public static void main(String[] args) throws InterruptedException {
        Samples.quietLogs();
        AtomicInteger readers = new AtomicInteger();
        try (TestEnsemble ensemble = TestEnsemble.builder().servers(1).start()) {
            List<Thread> threads = new ArrayList<>();
            for (String name : List.of("reader-1", "reader-2", "reader-3", "writer", "reader-4")) {
                ReadWriteLock rw = Recipes.using(ensemble.newClient()).readWriteLock("/config-lock");
                boolean writer = name.equals("writer");
                Thread t = new Thread(() -> {
                    try (LockLease lease = (writer ? rw.writeLock() : rw.readLock()).acquire()) {
                        int together = writer ? readers.get() : readers.incrementAndGet();
                        Samples.say("%s the lock (%d readers inside)", writer ? "WRITES under" : "reads under",
                                together);
                        Samples.pause(Duration.ofMillis(300)); // holds it for a moment, for show
                        if (!writer) {
                            readers.decrementAndGet();
                        }
                    }
                    Samples.say("released");
                }, name);
                threads.add(t);
                t.start();
                Samples.pause(Duration.ofMillis(50)); // arrive in this order, for show
            }
            for (Thread t : threads) {
                t.join();
            }
        }
    }
}
