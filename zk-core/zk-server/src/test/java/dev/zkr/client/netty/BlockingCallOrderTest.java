package dev.zkr.client.netty;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.zkr.client.CreateMode;
import dev.zkr.client.WatchedEvent;
import dev.zkr.client.ZkClient;
import dev.zkr.server.ServerConfig;
import dev.zkr.server.ZkServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Blocking calls may be completed straight on the I/O thread when the event thread is idle; they still return only
 * after every watcher and completion queued before their reply (the slow watcher makes a wrong order likely to
 * show within the iterations).
 */
class BlockingCallOrderTest {

    @TempDir
    Path dir;

    @Test
    void aBlockingCallReturnsOnlyAfterTheWatcherOfAChangeItSees() throws Exception {
        try (ZkServer server = ZkServer.start(ServerConfig.builder(dir).port(0).build());
             ZkClient client = ZkClient.builder().connectString("127.0.0.1:" + server.port())
                     .sessionTimeout(Duration.ofSeconds(10)).connectTimeout(Duration.ofSeconds(10)).build()) {
            client.create("/n", new byte[0], CreateMode.PERSISTENT);
            for (int i = 0; i < 50; i++) {
                List<String> seen = Collections.synchronizedList(new ArrayList<>());
                CountDownLatch release = new CountDownLatch(1);
                client.exists("/n", e -> {
                    try {
                        release.await(10, TimeUnit.SECONDS); // a slow watcher: the reply below must wait for it
                    } catch (InterruptedException ex) {
                        Thread.currentThread().interrupt();
                    }
                    seen.add(e.type() + " " + e.path());
                });
                CompletableFuture<List<String>> setter = CompletableFuture.supplyAsync(() -> {
                    client.setData("/n", new byte[]{1}, -1);
                    return List.copyOf(seen); // what had run when the blocking call returned
                });
                release.countDown();
                assertEquals(List.of(WatchedEvent.Type.NODE_DATA_CHANGED + " /n"), setter.get(10, TimeUnit.SECONDS),
                        "the watcher ran before the blocking call returned");
            }
            // and with nothing queued the blocking forms work as usual
            assertEquals(1, client.getData("/n").data().length);
            assertEquals(0, client.exists("/n").numChildren());
            client.delete("/n", -1);
            assertEquals(null, client.exists("/n"));
        }
    }
}
