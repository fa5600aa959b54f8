package dev.zkr.server.port;

import dev.zkr.server.RawClient;
import dev.zkr.server.ServerFixture;
import dev.zkr.server.ZkServer;
import dev.zkr.client.AddWatchMode;
import dev.zkr.client.CreateMode;
import dev.zkr.client.ZkClient;
import dev.zkr.wire.Message;
import dev.zkr.wire.MessageCodec;
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
 * Issue 10, findings 2 and 3: a client that does not read its socket cannot make the server buffer without bound.
 * Its connection is closed — after {@code slowReaderTimeout} above the high water mark, or at once past
 * {@code maxOutboundBytesPerConnection} — while a well-behaved client keeps being served. Before the fix the
 * server buffered everything (events bypass read backpressure) until the idle timeout, far later.
 *
 * <p>The slow clients read nothing until the server has closed them (the server's count of open connections says
 * so), with a small socket receive buffer: a client that starts reading before the server has decided is draining,
 * not slow, and would (rightly) be kept, whatever the load on the machine delays.
 */
class SlowReaderTest {

    /** Quiet time after which a connection that is still open counts as "not closed" (the idle timeout is 120 s). */
    private static final int QUIET_MS = 10_000;
    /** The slow clients' socket receive buffer: the kernel holds little of what the server sends them. */
    private static final int SMALL_RECEIVE_BUFFER = 4096;
    /** Generous (a loaded machine may delay the server), yet well before the slow clients' idle timeout (120 s). */
    private static final Duration DEADLINE = Duration.ofSeconds(60);

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
    void aWatcherThatDoesNotReadItsEventsIsClosedAfterTheSlowReaderTimeout() {
        server = ZkServer.start(ServerFixture.config(dir).slowReaderTimeout(Duration.ofMillis(300))
                .maxSessionTimeout(Duration.ofSeconds(120)).build());
        ServerChannelInitializer connections = ServerFixture.clientPort(server).initializer();
        try (ZkClient good = good();
             RawClient slow = RawClient.session(server.port(), 120_000, SMALL_RECEIVE_BUFFER)) {
            good.create("/w", new byte[0], CreateMode.PERSISTENT);
            assertEquals(0, slow.call(x -> new Message.AddWatchRequest(x, "/w",
                    AddWatchMode.PERSISTENT_RECURSIVE)).code());
            assertEquals(2, connections.open());
            // from now on the slow client reads nothing: every create below sends it a ~10 KB event, 20 MB in all,
            // far more than the kernel's socket buffers hold; then the writes stop and the server must still close it
            String name = "n".repeat(10_000);
            for (int round = 0; round < 40; round++) {
                List<CompletableFuture<?>> writes = new ArrayList<>();
                for (int i = 0; i < 50; i++) {
                    writes.add(good.createAsync("/w/" + name + "-" + round + "-" + i, new byte[0],
                            CreateMode.PERSISTENT));
                }
                CompletableFuture.allOf(writes.toArray(new CompletableFuture<?>[0])).join();
            }
            ServerFixture.await("the server to close the slow reader", DEADLINE, () -> connections.open() == 1);
            long received = slow.drainUntilClosed(QUIET_MS); // the slow one was closed: what the kernel held, then EOF
            assertTrue(received < 2_000 * 10_000L, "the server closed it before sending every event: " + received);
            good.setData("/w", new byte[] {7}, -1); // the good client is still served, on its first connection
            assertArrayEquals(new byte[] {7}, good.getData("/w").data());
            assertEquals(1, connections.open());
        }
    }

    @Test
    void aClientPipeliningLargeReadsWithoutReadingIsClosedAtTheOutboundCap() {
        server = ZkServer.start(ServerFixture.config(dir).maxOutboundBytesPerConnection(8 << 20)
                .slowReaderTimeout(Duration.ofMinutes(5)).maxSessionTimeout(Duration.ofSeconds(120)).build());
        ServerChannelInitializer connections = ServerFixture.clientPort(server).initializer();
        try (ZkClient good = good();
             RawClient slow = RawClient.session(server.port(), 120_000, SMALL_RECEIVE_BUFFER)) {
            good.create("/big", new byte[1 << 20], CreateMode.PERSISTENT);
            assertEquals(2, connections.open());
            // 200 MB of replies it does not read, asked for in one write: the server reads every request before its
            // first reply pauses reading, so the replies pass the cap whatever the scheduling
            java.io.ByteArrayOutputStream requests = new java.io.ByteArrayOutputStream();
            for (int i = 0; i < 200; i++) {
                requests.writeBytes(RawClient.frame(MessageCodec.encode(
                        new Message.GetDataRequest(slow.nextXid(), "/big", false))));
            }
            slow.sendRaw(requests.toByteArray());
            ServerFixture.await("the server to close the slow reader", DEADLINE, () -> connections.open() == 1);
            long received = slow.drainUntilClosed(QUIET_MS);
            assertTrue(received < 200L << 20, "closed before every reply was sent: " + received);
            assertEquals(1 << 20, good.getData("/big").data().length);
            assertEquals(1, connections.open());
        }
    }
}
