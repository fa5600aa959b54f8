package dev.zkr.testkit.ensemble;

import dev.zkr.client.Acls;
import dev.zkr.client.CreateMode;
import dev.zkr.client.Op;
import dev.zkr.client.Stat;
import dev.zkr.client.WatchedEvent;
import dev.zkr.client.ZkClient;
import dev.zkr.client.ZkException;
import dev.zkr.testkit.TestEnsemble;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static dev.zkr.testkit.ensemble.EnsembleBasicsTest.retry;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * TTL nodes on real servers: created by zkr's client (alone and in a multi), refused with a bad TTL, deleted by the
 * leader once childless and unmodified past their TTL (never earlier, on the server's clock), kept while they have
 * children, and still TTL nodes after a restart (log replay and snapshot) and after a leader change.
 */
class TtlNodesTest {

    private static final byte[] DATA = "d".getBytes();
    private static final Duration SHORT = Duration.ofMillis(150);

    private static TestEnsemble standalone() {
        return TestEnsemble.builder().servers(1)
                .configure(c -> c.containerCheckInterval(Duration.ofMillis(25)).snapshotInterval(20)).start();
    }

    /** Completes with the node's deletion (an exists watch set now; the node must exist). */
    private static CompletableFuture<WatchedEvent> deletion(ZkClient c, String path) {
        CompletableFuture<WatchedEvent> deleted = new CompletableFuture<>();
        Stat stat = c.exists(path, e -> {
            if (e.type() == WatchedEvent.Type.NODE_DELETED) {
                deleted.complete(e);
            }
        });
        assertNotNull(stat, path + " exists");
        return deleted;
    }

    @Test
    void aChildlessTtlNodeIsDeletedOnlyAfterItsTtlHasPassedOnTheServersClock() throws Exception {
        try (TestEnsemble e = standalone(); ZkClient c = e.newClient()) {
            String path = c.create("/ttl", DATA, CreateMode.PERSISTENT_WITH_TTL, null, SHORT);
            Stat created = c.exists(path);
            assertEquals(0, created.ephemeralOwner(), "a TTL node reports no owner, as in ZooKeeper");
            deletion(c, path).get(10, TimeUnit.SECONDS);
            // a node created now carries the server's time after the deletion
            c.create("/probe", DATA, CreateMode.PERSISTENT);
            long after = c.exists("/probe").ctime();
            assertTrue(after - created.mtime() > SHORT.toMillis(),
                    "deleted " + (after - created.mtime()) + " ms after its mtime, TTL " + SHORT.toMillis() + " ms");
        }
    }

    @Test
    void aTtlNodeWithAChildStaysUntilTheChildIsGone() throws Exception {
        try (TestEnsemble e = standalone(); ZkClient c = e.newClient()) {
            c.create("/parent", DATA, CreateMode.PERSISTENT_WITH_TTL, null, SHORT);
            c.create("/parent/child", DATA, CreateMode.PERSISTENT);
            // a TTL node created later, without children, expires first
            c.create("/witness", DATA, CreateMode.PERSISTENT_WITH_TTL, null, SHORT);
            deletion(c, "/witness").get(10, TimeUnit.SECONDS);
            assertNotNull(c.exists("/parent"), "kept while it has a child");
            CompletableFuture<WatchedEvent> gone = deletion(c, "/parent");
            c.delete("/parent/child", -1);
            gone.get(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void sequentialTtlNodesAndTtlNodesInAMultiExpireToo() throws Exception {
        try (TestEnsemble e = standalone(); ZkClient c = e.newClient()) {
            String seq = c.create("/seq-", DATA, CreateMode.PERSISTENT_SEQUENTIAL_WITH_TTL, null, SHORT);
            assertEquals("/seq-0000000000", seq);
            c.multi(List.of(Op.create("/in-multi", DATA, CreateMode.PERSISTENT_WITH_TTL, Acls.OPEN_UNSAFE, SHORT),
                    Op.create("/plain", DATA, CreateMode.PERSISTENT)));
            CompletableFuture<WatchedEvent> a = deletion(c, seq);
            CompletableFuture<WatchedEvent> b = deletion(c, "/in-multi");
            a.get(10, TimeUnit.SECONDS);
            b.get(10, TimeUnit.SECONDS);
            assertNotNull(c.exists("/plain"), "a node without TTL stays");
        }
    }

    @Test
    void badTtlsAreRefusedAndCreateNothing() throws Exception {
        try (TestEnsemble e = standalone(); ZkClient c = e.newClient()) {
            for (Duration ttl : List.of(Duration.ZERO, Duration.ofMillis(-5),
                    Duration.ofMillis(CreateMode.MAX_TTL_MS + 1))) {
                assertThrows(ZkException.BadArguments.class,
                        () -> c.create("/bad", DATA, CreateMode.PERSISTENT_WITH_TTL, null, ttl), "TTL " + ttl);
            }
            assertThrows(ZkException.BadArguments.class,
                    () -> c.create("/bad", DATA, CreateMode.PERSISTENT, null, SHORT), "a TTL on a mode without");
            assertThrows(ZkException.BadArguments.class,
                    () -> c.create("/bad", DATA, CreateMode.PERSISTENT_WITH_TTL), "a TTL mode without a TTL");
            assertThrows(ZkException.BadArguments.class, () -> c.multi(List.of(Op.create("/ok", DATA,
                    CreateMode.PERSISTENT), new Op.Create("/bad", DATA, CreateMode.PERSISTENT_WITH_TTL, null, 0))));
            assertEquals(null, c.exists("/bad"));
            assertEquals(null, c.exists("/ok"));
        }
    }

    /** After a restart (from the log, then from a snapshot) the node is still a TTL node: it expires. */
    @Test
    void aTtlNodeIsStillOneAfterRestartsFromTheLogAndFromASnapshot() throws Exception {
        try (TestEnsemble e = standalone()) {
            try (ZkClient c = e.newClient()) {
                c.create("/kept", DATA, CreateMode.PERSISTENT_WITH_TTL, null, SHORT);
                c.create("/kept/child", DATA, CreateMode.PERSISTENT);
                c.create("/kept2", DATA, CreateMode.PERSISTENT_WITH_TTL, null, SHORT);
                c.create("/kept2/child", DATA, CreateMode.PERSISTENT);
            }
            e.stop(0);
            e.restart(0); // replays the creates from the log
            try (ZkClient c = e.newClient()) {
                CompletableFuture<WatchedEvent> gone = deletion(c, "/kept");
                c.delete("/kept/child", -1);
                gone.get(10, TimeUnit.SECONDS);
                for (int i = 0; i < 30; i++) { // past snapshotInterval: the tree with /kept2 is in a snapshot
                    c.create("/filler-", DATA, CreateMode.PERSISTENT_SEQUENTIAL);
                }
            }
            e.stop(0);
            e.restart(0);
            try (ZkClient c = e.newClient()) {
                CompletableFuture<WatchedEvent> gone = deletion(c, "/kept2");
                c.delete("/kept2/child", -1);
                gone.get(10, TimeUnit.SECONDS);
            }
        }
    }

    /** The leader deletes expired TTL nodes; after it dies the next leader does, and every member applies it. */
    @Test
    void theNextLeaderDeletesTtlNodesAndEveryMemberFollows() throws Exception {
        try (TestEnsemble e = TestEnsemble.builder().servers(3)
                .configure(c -> c.containerCheckInterval(Duration.ofMillis(25))).start()) {
            int leader = e.leader();
            int other = (leader + 1) % 3;
            try (ZkClient c = e.newClient(b -> b.connectString(e.connectString(other)))) {
                retry(() -> c.create("/t", DATA, CreateMode.PERSISTENT_WITH_TTL, null, SHORT));
                retry(() -> c.create("/t/child", DATA, CreateMode.PERSISTENT));
                CompletableFuture<WatchedEvent> gone = deletion(c, "/t");
                e.kill(leader);
                retry(() -> {
                    try {
                        c.delete("/t/child", -1);
                    } catch (ZkException.NoNode done) {
                        // an earlier attempt answered CONNECTION_LOSS did happen
                    }
                    return null;
                });
                gone.get(20, TimeUnit.SECONDS);
            }
            e.restart(leader);
            try (ZkClient back = e.newClient(b -> b.connectString(e.connectString(leader)))) {
                retry(() -> {
                    back.sync("/");
                    return null;
                });
                assertEquals(null, back.exists("/t"), "the restarted member applied the deletion");
            }
        }
    }
}
