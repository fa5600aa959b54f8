package dev.zkr.samples;

import dev.zkr.client.ZkClient;
import dev.zkr.recipes.Recipes;
import dev.zkr.recipes.Semaphore;
import dev.zkr.recipes.SemaphoreLease;
import dev.zkr.testkit.TestEnsemble;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A counting semaphore: six clients share a "database" that takes at most three connections at once; some need one
 * connection, some two. Each counts the connections in use while it holds its lease: never more than three. The
 * crashed client's permits (session expired) go to the next in line.
 */
public final class SemaphoreSample {

    private static final int PERMITS = 3;
    private static final int CLIENTS = 6;
    private static final int ROUNDS = 5;

    public static void main(String[] args) throws InterruptedException {
        Samples.quietLogs();
        try (TestEnsemble ensemble = TestEnsemble.builder().servers(1).start()) {
            AtomicInteger inUse = new AtomicInteger();
            AtomicInteger max = new AtomicInteger();
            List<Thread> threads = new ArrayList<>();
            for (int c = 0; c < CLIENTS; c++) {
                int need = c % 2 + 1;
                Semaphore db = Recipes.using(ensemble.newClient()).semaphore("/sem/db").permits(PERMITS).build();
                Thread thread = new Thread(() -> {
                    for (int i = 0; i < ROUNDS; i++) {
                        try (SemaphoreLease lease = db.acquire(need)) {
                            int now = inUse.addAndGet(lease.permits());
                            max.accumulateAndGet(now, Math::max);
                            if (i == 0) {
                                Samples.say("holds %d permit(s); %d of %d in use", lease.permits(), now, PERMITS);
                            }
                            inUse.addAndGet(-lease.permits());
                        }
                    }
                }, "client-" + (c + 1));
                threads.add(thread);
                thread.start();
            }
            for (Thread t : threads) {
                t.join();
            }
            Samples.say("at most %d of %d permits were in use at once", max.get(), PERMITS);
            if (max.get() > PERMITS) {
                throw new IllegalStateException("more permits in use than the semaphore has: " + max.get());
            }

            // a holder crashes: its session expires and the waiter behind it gets the permits
            ZkClient doomed = ensemble.newClient();
            SemaphoreLease crashed = Recipes.using(doomed).semaphore("/sem/db").permits(PERMITS).build().acquire(3);
            Samples.say("a client holds all %d permits, then crashes", crashed.permits());
            Semaphore next = Recipes.using(ensemble.newClient()).semaphore("/sem/db").permits(PERMITS).build();
            Thread waiter = new Thread(() -> {
                try (SemaphoreLease lease = next.acquire(2)) {
                    Samples.say("got %d permits after the crash", lease.permits());
                }
            }, "waiter");
            waiter.start();
            ensemble.expireSession(doomed.sessionId());
            waiter.join();
            Samples.say("the crashed client's lease is %s", crashed.state());
        }
    }
}
