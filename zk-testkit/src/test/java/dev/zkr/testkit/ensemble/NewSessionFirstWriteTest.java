package dev.zkr.testkit.ensemble;

import dev.zkr.client.CreateMode;
import dev.zkr.client.ZkClient;
import dev.zkr.testkit.TestEnsemble;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import static dev.zkr.testkit.ensemble.Ensembles.clientOf;
import static dev.zkr.testkit.ensemble.Ensembles.others;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * A new session's first write through a follower, sent as soon as its handshake is answered, is never refused as
 * SESSION_EXPIRED. The follower may commit the session's txn on the two disks it counts (its own and the
 * leader's) and answer the handshake before the leader commits it: the follower's {@code Ack} that lets the leader
 * commit precedes the forwarded write on the link, and the leader must apply the session before it checks the
 * forward. When one read of the link brings both, they are handled in two rounds (issue 27: one round per read
 * made the leader check the write first).
 */
@Timeout(120)
class NewSessionFirstWriteTest {

    private static final int SESSIONS = 100;

    @Test
    void aNewSessionsFirstWriteThroughAFollowerIsNeverRefused() throws Exception {
        try (TestEnsemble e = TestEnsemble.builder().servers(3).start()) {
            int follower = others(3, e.leader())[0];
            ZkClient load = clientOf(e, follower);
            load.create("/load", new byte[0], CreateMode.PERSISTENT);
            // pipelined writes through the same follower keep its link to the leader busy, so acks and forwards
            // share reads on the leader
            AtomicBoolean stop = new AtomicBoolean();
            AtomicReference<Throwable> loadFailed = new AtomicReference<>();
            Semaphore inFlight = new Semaphore(100);
            Thread loader = new Thread(() -> {
                try {
                    while (!stop.get()) {
                        inFlight.acquire();
                        load.createAsync("/load/n-", new byte[100], CreateMode.PERSISTENT_SEQUENTIAL)
                                .whenComplete((v, err) -> {
                                    inFlight.release();
                                    if (err != null) {
                                        loadFailed.compareAndSet(null, err);
                                    }
                                });
                    }
                } catch (InterruptedException done) {
                    Thread.currentThread().interrupt();
                }
            });
            loader.start();
            try {
                for (int i = 0; i < SESSIONS; i++) {
                    try (ZkClient c = clientOf(e, follower)) {
                        c.create("/s" + i, new byte[0], CreateMode.PERSISTENT);
                    }
                }
            } finally {
                stop.set(true);
                loader.join();
            }
            assertNull(loadFailed.get());
        }
    }
}
