package dev.zkr.server;

import dev.zkr.client.CreateMode;
import dev.zkr.client.ZkClient;
import dev.zkr.client.ZkException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * Issue 10, finding 1: a session whose ephemeral paths add up to more than the log's 64 MiB record limit closes,
 * or is abandoned and expires after a restart; the server keeps serving and restarts cleanly (no crash loop).
 * Before CloseSession became path-free its txn listed every path and the log stage stopped the server.
 */
class EphemeralBombTest {

    /** 700 paths of ~100 KB: ~70 MB, over the log's 64 MiB record limit. */
    private static final int EPHEMERALS = 700;
    private static final int PATH_BYTES = 100_000;

    @TempDir
    Path dir;
    private ZkServer server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    private ZkClient client(int sessionTimeoutMs) {
        return ZkClient.builder().connectString(server.connectString())
                .sessionTimeout(Duration.ofMillis(sessionTimeoutMs)).build();
    }

    private static String bombPath(String parent, int i) {
        return parent + "/" + "x".repeat(PATH_BYTES) + i;
    }

    private static void plant(ZkClient c, String parent) {
        List<CompletableFuture<?>> creates = new ArrayList<>();
        for (int i = 0; i < EPHEMERALS; i++) {
            creates.add(c.createAsync(bombPath(parent, i), new byte[0], CreateMode.EPHEMERAL));
            if (creates.size() == 50) { // each reply carries its 100 KB path: keep a few MB in flight
                CompletableFuture.allOf(creates.toArray(new CompletableFuture<?>[0])).join();
                creates.clear();
            }
        }
        CompletableFuture.allOf(creates.toArray(new CompletableFuture<?>[0])).join();
    }

    private static void assertServes(ZkClient c, String path) {
        c.create(path, new byte[] {1}, CreateMode.PERSISTENT);
        assertEquals(1, c.getData(path).data()[0]);
    }

    @Test
    void closingOrExpiringASessionWhosePathsOutgrowTheLogRecordLimitKeepsTheServerUp() {
        server = ZkServer.start(ServerFixture.config(dir).build());
        try (ZkClient good = client(10_000)) {
            good.create("/live", new byte[0], CreateMode.PERSISTENT);
            good.create("/abandoned", new byte[0], CreateMode.PERSISTENT);

            ZkClient bomber = client(10_000);
            plant(bomber, "/live");
            bomber.close(); // CloseSession of a session owning ~70 MB of paths
            // close() waits a bounded time for the reply; on a loaded machine the close may still be applying (or,
            // if the client gave up, the session expires): either way every ephemeral must go
            ServerFixture.await("the closed session's ephemerals to go", Duration.ofSeconds(60),
                    () -> good.exists("/live").numChildren() == 0);
            assertServes(good, "/after-close");
        }

        // an abandoned session with the same load, then a crash: the restored session expires after the restart
        try (ZkClient abandoned = client(4_000)) {
            plant(abandoned, "/abandoned");
            server.kill();
        }
        server = ZkServer.start(ServerFixture.config(dir).port(0).build());
        try (ZkClient good = client(10_000)) {
            ServerFixture.await("the restored session to expire", Duration.ofSeconds(60),
                    () -> good.exists("/abandoned").numChildren() == 0);
            assertServes(good, "/after-expiry");
        }
        server.close();
        server = ZkServer.start(ServerFixture.config(dir).port(0).build());
        try (ZkClient good = client(10_000)) {
            assertNotNull(good.exists("/after-close"));
            assertNotNull(good.exists("/after-expiry"));
            assertNull(good.exists(bombPath("/live", 0)));
            assertServes(good, "/after-restart");
        }
    }

    @Test
    void aSessionOverItsEphemeralCapGetsATypedErrorAndKeepsItsConnection() {
        server = ZkServer.start(ServerFixture.config(dir).maxEphemeralsPerSession(5).build());
        try (ZkClient c = client(10_000)) {
            for (int i = 0; i < 5; i++) {
                c.create("/e" + i, new byte[0], CreateMode.EPHEMERAL);
            }
            ZkException.TooManyEphemerals e = assertThrows(ZkException.TooManyEphemerals.class,
                    () -> c.create("/e5", new byte[0], CreateMode.EPHEMERAL));
            assertEquals("/e5", e.path());
            c.create("/p", new byte[0], CreateMode.PERSISTENT); // same connection, still served
            c.delete("/e0", -1);
            c.create("/e5", new byte[0], CreateMode.EPHEMERAL);
        }
    }
}
