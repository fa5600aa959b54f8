package dev.zkr.client.netty;

import dev.zkr.client.AddWatchMode;
import dev.zkr.client.CreateMode;
import dev.zkr.client.ZkClient;
import dev.zkr.server.ServerConfig;
import dev.zkr.server.ZkServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 10, finding 4: a server that floods a client with events while the client's watcher is stuck does not
 * fill the client's heap: past {@link EventThread#BACKLOG_HIGH} unfinished callbacks the client stops reading the
 * socket, and no event is lost once the watcher goes on.
 */
class EventBacklogTest {

    private static final int EVENTS = 3 * EventThread.BACKLOG_HIGH;

    @TempDir
    Path dir;

    @Test
    void aStuckWatcherStopsTheClientReadingInsteadOfQueueingEveryEvent() throws Exception {
        ServerConfig config = ServerConfig.builder(dir).port(0).slowReaderTimeout(Duration.ofMinutes(5))
                .maxSessionTimeout(Duration.ofSeconds(60)).build();
        try (ZkServer server = ZkServer.start(config);
             ZkClient writer = ZkClient.connect(server.connectString(), Duration.ofSeconds(30));
             ZkClient watcher = ZkClient.builder().connectString(server.connectString())
                     .sessionTimeout(Duration.ofSeconds(60)).build()) {
            writer.create("/flood", new byte[0], CreateMode.PERSISTENT);
            CountDownLatch stuck = new CountDownLatch(1);
            AtomicInteger seen = new AtomicInteger();
            CountDownLatch all = new CountDownLatch(EVENTS);
            watcher.addWatch("/flood", AddWatchMode.PERSISTENT_RECURSIVE, e -> {
                try {
                    stuck.await();
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                }
                seen.incrementAndGet();
                all.countDown();
            });
            List<CompletableFuture<?>> writes = new ArrayList<>();
            for (int i = 0; i < EVENTS; i++) {
                writes.add(writer.createAsync("/flood/n" + i, new byte[0], CreateMode.PERSISTENT));
                if (writes.size() == 500) {
                    CompletableFuture.allOf(writes.toArray(new CompletableFuture<?>[0])).join();
                    writes.clear();
                }
            }
            CompletableFuture.allOf(writes.toArray(new CompletableFuture<?>[0])).join();
            stuck.countDown();
            assertTrue(all.await(60, TimeUnit.SECONDS), "every event arrives once the watcher goes on: "
                    + seen.get());
            int peak = ((NativeZkClient) watcher).peakEventBacklog();
            assertTrue(peak < EventThread.BACKLOG_HIGH + 5_000, "backlog bounded near BACKLOG_HIGH: " + peak);
            assertEquals(EVENTS, seen.get());
        }
    }
}
