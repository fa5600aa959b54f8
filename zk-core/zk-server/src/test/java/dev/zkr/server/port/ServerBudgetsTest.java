package dev.zkr.server.port;

import dev.zkr.server.RawClient;
import dev.zkr.server.ServerFixture;
import dev.zkr.server.ZkServer;
import dev.zkr.client.AddWatchMode;
import dev.zkr.client.CreateMode;
import dev.zkr.client.ZkClient;
import dev.zkr.wire.Message;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The server-wide memory budgets on a real server, observed through the server's own counters rather than timing:
 * {@code maxOutboundBytesTotal} closes a connection that does not drain while the connections above their high water
 * mark hold more than it together; {@code maxInboundBytesTotal} stops reading connections that hold inbound bytes
 * while the total is over it, and a client with nothing in flight is still served.
 */
class ServerBudgetsTest {

    @TempDir
    Path dir;
    private ZkServer server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    private ZkClient good() {
        return ZkClient.builder().connectString(server.connectString()).sessionTimeout(Duration.ofSeconds(30))
                .build();
    }

    @Test
    void watchersThatDoNotReadAreClosedOnceTogetherTheyHoldMoreThanTheOutboundBudget() {
        long total = 2 << 20;
        server = ZkServer.start(ServerFixture.config(dir).maxOutboundBytesTotal(total)
                .maxOutboundBytesPerConnection(32 << 20).slowReaderTimeout(Duration.ofMinutes(10))
                .maxSessionTimeout(Duration.ofSeconds(120)).build());
        ServerChannelInitializer connections = ServerFixture.clientPort(server).initializer();
        try (ZkClient good = good();
             RawClient a = RawClient.session(server.port(), 120_000, 4096);
             RawClient b = RawClient.session(server.port(), 120_000, 4096)) {
            good.create("/w", new byte[0], CreateMode.PERSISTENT);
            for (RawClient watcher : List.of(a, b)) {
                assertEquals(0, watcher.call(x -> new Message.AddWatchRequest(x, "/w",
                        AddWatchMode.PERSISTENT_RECURSIVE)).code());
            }
            assertEquals(3, connections.open());
            // from now on neither watcher reads: every create sends each a ~10 KB event. Each alone stays far below
            // maxOutboundBytesPerConnection (32 MiB) and the slow-reader timeout (10 min) never fires here.
            String name = "n".repeat(10_000);
            for (int round = 0; round < 200 && connections.outbound().closedCount() == 0; round++) {
                List<CompletableFuture<?>> writes = new ArrayList<>();
                for (int i = 0; i < 20; i++) {
                    writes.add(good.createAsync("/w/" + name + "-" + round + "-" + i, new byte[0],
                            CreateMode.PERSISTENT));
                }
                CompletableFuture.allOf(writes.toArray(new CompletableFuture<?>[0])).join();
            }
            assertTrue(connections.outbound().closedCount() >= 1, "a watcher was closed at maxOutboundBytesTotal");
            ServerFixture.await("the closed watcher gone from the server", Duration.ofSeconds(30),
                    () -> connections.open() <= 2);
            good.setData("/w", new byte[] {7}, -1); // the good client is still served
            assertArrayEquals(new byte[] {7}, good.getData("/w").data());
        }
    }

    @Test
    void partialFramesOverTheInboundBudgetStopReadingWhileAnIdleClientIsStillServed() throws Exception {
        int maxData = 64 * 1024;
        long limit = 400_000; // more than one frame (maxDataSize + 256 KiB = 327,680), less than two partials
        int senders = 4;
        int partial = 280_000;
        server = ZkServer.start(ServerFixture.config(dir).maxDataSize(maxData).maxInboundBytesTotal(limit)
                .maxSessionTimeout(Duration.ofSeconds(120)).build());
        InboundBudget inbound = ServerFixture.clientPort(server).initializer().inbound();
        List<RawClient> raw = new ArrayList<>();
        try (ZkClient good = good()) {
            good.create("/g", new byte[0], CreateMode.PERSISTENT);
            for (int i = 0; i < senders; i++) {
                RawClient c = RawClient.session(server.port(), 120_000);
                raw.add(c);
                // a frame announced at 300,000 bytes of which 280,000 arrive: the server must hold them
                byte[] bytes = new byte[4 + partial];
                bytes[1] = (byte) (300_000 >>> 16);
                bytes[2] = (byte) (300_000 >>> 8);
                bytes[3] = (byte) 300_000;
                c.sendRaw(bytes);
            }
            // two partials exceed the budget: at most one sender is still read, the others wait for the budget
            ServerFixture.await("senders paused by the inbound budget", Duration.ofSeconds(60),
                    () -> inbound.waiting() >= senders - 1);
            assertTrue(inbound.held() > limit, "over the budget: " + inbound.held());
            assertTrue(inbound.peak() <= limit + senders * 65_536L,
                    "at most one socket read per connection beyond the budget: peak " + inbound.peak());
            // a client with nothing in flight is still read and answered, one request at a time
            good.setData("/g", new byte[] {1}, -1);
            assertArrayEquals(new byte[] {1}, good.getData("/g").data());
            // a paused connection is not read, so its peer's close is noticed at its idle timeout; expiring the
            // senders' sessions closes their connections now, and their bytes are released
            for (RawClient c : raw) {
                assertTrue(server.expireSession(c.sessionId));
            }
            ServerFixture.await("the senders' bytes released", Duration.ofSeconds(30), () -> inbound.held() < 4096);
            assertEquals(0, inbound.waiting());
            good.setData("/g", new byte[maxData], -1); // a full frame is read again
            assertEquals(maxData, good.getData("/g").data().length);
        } finally {
            raw.forEach(RawClient::close);
        }
    }
}
