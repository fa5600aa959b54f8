package dev.zkr.samples;

import dev.zkr.client.CreateMode;
import dev.zkr.client.ZkClient;
import dev.zkr.recipes.DistributedLock;
import dev.zkr.recipes.LockLease;
import dev.zkr.recipes.Recipes;
import dev.zkr.testkit.TestEnsemble;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * A distributed lock: four threads, each with its own session, update a shared znode with an unguarded
 * read-modify-write ({@code getData}, then {@code setData} of any version). Under the lock no update is lost; each
 * holder's fencing token is larger than the previous holder's.
 */
public final class LockSample {

    private static final int THREADS = 4;
    private static final int ROUNDS = 10;

    public static void main(String[] args) throws InterruptedException {
        Samples.quietLogs();
        try (TestEnsemble ensemble = TestEnsemble.builder().servers(1).start()) {
            ZkClient admin = ensemble.newClient();
            admin.create("/balance", ByteBuffer.allocate(8).putLong(0).array(), CreateMode.PERSISTENT);
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                ZkClient client = ensemble.newClient();
                DistributedLock lock = Recipes.using(client).lock("/locks/balance");
                Thread thread = new Thread(() -> {
                    long lastToken = -1;
                    for (int i = 0; i < ROUNDS; i++) {
                        try (LockLease lease = lock.acquire()) {
                            long v = ByteBuffer.wrap(client.getData("/balance").data()).getLong();
                            client.setData("/balance", ByteBuffer.allocate(8).putLong(v + 1).array(), -1);
                            if (i == 0 || i == ROUNDS - 1) {
                                Samples.say("holds the lock (fencing token %d): balance %d -> %d",
                                        lease.fencingToken(), v, v + 1);
                            }
                            if (lease.fencingToken() <= lastToken) {
                                throw new IllegalStateException("fencing token went backwards");
                            }
                            lastToken = lease.fencingToken();
                        }
                    }
                }, "client-" + (t + 1));
                threads.add(thread);
                thread.start();
            }
            for (Thread t : threads) {
                t.join();
            }
            long balance = ByteBuffer.wrap(admin.getData("/balance").data()).getLong();
            Samples.say("balance %d after %d locked increments: %s", balance, THREADS * ROUNDS,
                    balance == THREADS * ROUNDS ? "no update lost" : "UPDATES LOST");
            if (balance != THREADS * ROUNDS) {
                throw new IllegalStateException("updates lost under the lock: " + balance);
            }
        }
    }
}
