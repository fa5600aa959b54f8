package dev.zkr.samples;

import dev.zkr.client.CreateMode;
import dev.zkr.client.NodeData;
import dev.zkr.client.ZkClient;
import dev.zkr.client.ZkException;
import dev.zkr.recipes.LeaseState;
import dev.zkr.recipes.LeasedLock;
import dev.zkr.recipes.Recipes;
import dev.zkr.recipes.TimedLease;
import dev.zkr.testkit.TestEnsemble;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A leased lock and a fenced store: a worker holds the lock with a 500 ms lease, writes and renews, then stalls
 * (a long GC pause, say) with its session alive. Its lease runs out, a second worker takes over and writes with a
 * larger fencing token; the first worker wakes up, and its late write is refused by the store, which keeps the
 * largest token it has seen. Its renewal finds the lock taken over.
 */
public final class LeasedLockSample {

    private static final Duration LEASE = Duration.ofMillis(500);

    /** A store that refuses a write whose fencing token is smaller than the largest it has accepted. */
    private record FencedStore(ZkClient client, String path) {

        boolean write(long token, long value) {
            while (true) {
                NodeData now = client.getData(path);
                long largest = ByteBuffer.wrap(now.data()).getLong();
                if (token < largest) {
                    return false;
                }
                byte[] next = ByteBuffer.allocate(16).putLong(token).putLong(value).array();
                try {
                    client.setData(path, next, now.stat().version());
                    return true;
                } catch (ZkException.BadVersion raced) {
                    // another write came between: look again
                }
            }
        }
    }

    public static void main(String[] args) throws Exception {
        Samples.quietLogs();
        try (TestEnsemble ensemble = TestEnsemble.builder().servers(1).start()) {
            ZkClient admin = ensemble.newClient();
            admin.create("/store", ByteBuffer.allocate(16).array(), CreateMode.PERSISTENT);
            LeasedLock first = Recipes.using(ensemble.newClient()).leasedLock("/locks/job").lease(LEASE).build();
            LeasedLock second = Recipes.using(ensemble.newClient()).leasedLock("/locks/job").lease(LEASE).build();
            FencedStore store = new FencedStore(admin, "/store");

            TimedLease a = first.acquire();
            CountDownLatch expired = new CountDownLatch(1);
            a.addStateListener((l, s) -> {
                if (s == LeaseState.EXPIRED) {
                    expired.countDown();
                }
            }, null);
            Samples.say("worker A holds (token %d, %d ms left), writes: %s", a.fencingToken(),
                    a.remaining().toMillis(), store.write(a.fencingToken(), 1));
            CompletableFuture<TimedLease> waiting = second.acquireAsync(); // no thread waits
            Samples.say("worker A renews: %s (%d ms left); worker B waits: %s", a.renew(), a.remaining().toMillis(),
                    !waiting.isDone());

            Samples.say("worker A stalls (its session lives on) ...");
            TimedLease b = waiting.get(10, TimeUnit.SECONDS);
            if (!expired.await(10, TimeUnit.SECONDS) || a.isValid()) {
                throw new IllegalStateException("A should know its lease ran out");
            }
            Samples.say("worker B took over after A's lease (token %d > %d), writes: %s", b.fencingToken(),
                    a.fencingToken(), store.write(b.fencingToken(), 2));

            boolean late = store.write(a.fencingToken(), 3);
            Samples.say("worker A wakes up (state %s), its late write: %s", a.state(), late ? "ACCEPTED" : "refused");
            boolean renewed = a.renew();
            Samples.say("worker A renews: %s, state %s", renewed, a.state());
            if (late || renewed || b.fencingToken() <= a.fencingToken() || a.state() != LeaseState.LOST) {
                throw new IllegalStateException("the stalled holder was not fenced off");
            }
            a.close();
            b.close();
        }
    }
}
