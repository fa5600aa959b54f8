package dev.zkr.server;

import dev.zkr.client.CreateMode;
import dev.zkr.client.ZkException;
import dev.zkr.wire.Message;
import dev.zkr.wire.MessageCodec;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Random;
import java.util.function.Consumer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Each kind of bad input closes the offending connection while a well-behaved session on the same server keeps
 * being served before, during and after.
 */
class BadInputTest {

    private static final int MAX_DATA = 4096;

    @TempDir
    Path dir;
    ZkServer server;
    RawClient good;
    int counter;

    @BeforeEach
    void start() {
        // a handshake timeout far beyond any scheduling stall: the well-behaved client must never be closed for
        // slowness on a loaded machine; silentClientIsClosedAfterTheHandshakeTimeout uses its own strict server
        server = ZkServer.start(ServerFixture.config(dir).maxDataSize(MAX_DATA)
                .handshakeTimeout(Duration.ofSeconds(60)).maxInFlightPerConnection(64).build());
        good = RawClient.session(server.port(), 10_000);
        assertWellBehavedClientServed();
    }

    @AfterEach
    void stop() {
        assertWellBehavedClientServed();
        good.close();
        server.close();
    }

    private void assertWellBehavedClientServed() {
        String path = "/good" + counter++;
        assertEquals(0, good.call(x -> new Message.CreateRequest(x, path, new byte[]{1}, CreateMode.PERSISTENT))
                .code());
        Message.Reply r = good.call(x -> new Message.GetDataRequest(x, path, false));
        assertArrayEquals(new byte[]{1}, ((Message.DataBody) r.body()).data());
    }

    /** Opens a raw connection, misbehaves on it, and checks the server closes it while the good client works. */
    private void misbehave(Consumer<RawClient> action) {
        try (RawClient bad = new RawClient(server.port())) {
            action.accept(bad);
            assertWellBehavedClientServed();
            assertTrue(bad.closedByServer(5000), "server should close the bad connection");
        }
    }

    @Test
    void garbageBytes() {
        byte[] garbage = new byte[512];
        new Random(42).nextBytes(garbage);
        misbehave(bad -> bad.sendRaw(garbage));
    }

    @Test
    void garbageInsideAWellFormedFrame() {
        byte[] garbage = new byte[64];
        new Random(7).nextBytes(garbage);
        garbage[0] = (byte) 0x99; // not a registered class id
        misbehave(bad -> bad.sendRaw(RawClient.frame(garbage)));
    }

    @Test
    void oversizedFrame() {
        int len = MessageCodec.maxFrameSize(MAX_DATA) + 1;
        misbehave(bad -> bad.sendRaw(new byte[]{(byte) (len >>> 24), (byte) (len >>> 16), (byte) (len >>> 8),
                (byte) len, 1, 2, 3}));
    }

    @Test
    void unknownKryoClassId() {
        // varint 1001 = class id 999: never registered
        misbehave(bad -> bad.sendRaw(RawClient.frame(new byte[]{(byte) 0xE9, 0x07, 0, 0})));
    }

    @Test
    void requestBeforeTheHandshake() {
        misbehave(bad -> {
            bad.send(new Message.GetDataRequest(1, "/", false));
            assertInstanceOf(Message.ProtocolError.class, bad.receive());
        });
    }

    @Test
    void wrongProtocolVersion() {
        misbehave(bad -> {
            bad.send(new Message.ConnectRequest(Message.PROTOCOL_VERSION + 1, 0, new byte[16], 5000, 0));
            Message.ProtocolError e = assertInstanceOf(Message.ProtocolError.class, bad.receive());
            assertTrue(e.message().contains("version"), e.message());
        });
    }

    @Test
    void silentClientIsClosedAfterTheHandshakeTimeout(@TempDir Path strictDir) {
        try (ZkServer strict = ZkServer.start(ServerFixture.config(strictDir)
                .handshakeTimeout(Duration.ofMillis(300)).build());
             RawClient silent = new RawClient(strict.port())) {
            assertTrue(silent.closedByServer(30_000), "server should close a connection that sends nothing");
            // a client that does send its handshake (in time: retried if a stall made it miss the 300 ms) is served
            try (RawClient prompt = sessionWithin300Ms(strict.port())) {
                assertEquals(0, prompt.call(x -> new Message.ExistsRequest(x, "/", false)).code());
            }
        }
    }

    /**
     * A client that sends nothing after its handshake (no request, no ping) loses its connection once its session
     * timeout passes without a read (the event loop's idle sweep), not before; a client that pings keeps it.
     */
    @Test
    void anAttachedClientThatSendsNothingIsClosedAfterItsSessionTimeout() {
        try (RawClient silent = new RawClient(server.port()); RawClient talking = new RawClient(server.port())) {
            int timeoutMs = silent.handshake(0, null, 600).negotiatedTimeoutMs();
            talking.handshake(0, null, 600);
            long attached = System.nanoTime();
            long closedAfter = -1;
            long deadline = attached + Duration.ofSeconds(30).toNanos();
            while (System.nanoTime() < deadline
                    && (closedAfter < 0 || System.nanoTime() - attached < Duration.ofMillis(2L * timeoutMs).toNanos())) {
                assertEquals(0, talking.call(x -> new Message.ExistsRequest(x, "/", false)).code(),
                        "a client that keeps sending keeps its connection");
                if (closedAfter < 0 && silent.closedByServer(Math.max(1, timeoutMs / 10))) {
                    closedAfter = (System.nanoTime() - attached) / 1_000_000;
                }
            }
            assertTrue(closedAfter >= 0, "a silent connection stayed open for 30 s");
            assertTrue(closedAfter >= timeoutMs * 9 / 10, "closed " + closedAfter + " ms after the attach, before its "
                    + "session timeout of " + timeoutMs + " ms");
        }
    }

    /** A session on a server with a 300 ms handshake timeout; a new connection if the server dropped a slow one. */
    private static RawClient sessionWithin300Ms(int port) {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (true) {
            RawClient c = new RawClient(port);
            try {
                c.handshake(0, null, 5000);
                return c;
            } catch (java.io.UncheckedIOException closedBeforeTheHandshake) {
                c.close();
                if (System.nanoTime() > deadline) {
                    throw closedBeforeTheHandshake;
                }
            }
        }
    }

    @Test
    void serverMessageSentByAClient() {
        misbehave(bad -> {
            bad.handshake(0, null, 5000);
            bad.send(new Message.Reply(1, 0, 0, null, null));
        });
    }

    @Test
    void unknownSessionIsRefusedAsExpired() {
        misbehave(bad -> {
            bad.send(new Message.ConnectRequest(Message.PROTOCOL_VERSION, 0x1234567L, new byte[16], 5000, 0));
            Message.ConnectRefused r = assertInstanceOf(Message.ConnectRefused.class, bad.receive());
            assertEquals(ZkException.Code.SESSION_EXPIRED.intValue(), r.code());
        });
    }

    @Test
    void oversizedDataThatFitsInAFrameIsRefusedAndTheConnectionStays() {
        try (RawClient c = RawClient.session(server.port(), 5000)) {
            Message.Reply r = c.call(x -> new Message.CreateRequest(x, "/big", new byte[MAX_DATA + 1],
                    CreateMode.PERSISTENT));
            assertEquals(ZkException.Code.DATA_TOO_LARGE.intValue(), r.code());
            assertEquals(0, c.call(x -> new Message.CreateRequest(x, "/ok", new byte[MAX_DATA],
                    CreateMode.PERSISTENT)).code());
        }
    }

    @Test
    void invalidPathIsAnErrorReplyNotAClosedConnection() {
        try (RawClient c = RawClient.session(server.port(), 5000)) {
            assertEquals(ZkException.Code.INVALID_PATH.intValue(),
                    c.call(x -> new Message.GetDataRequest(x, "no/slash", false)).code());
            assertEquals(ZkException.Code.INVALID_PATH.intValue(),
                    c.call(x -> new Message.CreateRequest(x, "/a/../b", new byte[0], CreateMode.PERSISTENT)).code());
            assertEquals(ZkException.Code.BAD_ARGUMENTS.intValue(),
                    c.call(x -> new Message.CreateRequest(x, "/m", new byte[0], null)).code());
            assertEquals(0, c.call(x -> new Message.ExistsRequest(x, "/", false)).code());
        }
    }

    @Test
    void clientThatFloodsRequestsWithoutReadingRepliesDoesNotStopOthers() throws Exception {
        try (RawClient flood = RawClient.session(server.port(), 30_000)) {
            Thread t = new Thread(() -> {
                try {
                    byte[] data = new byte[1000];
                    for (int i = 0; i < 200_000; i++) {
                        flood.send(new Message.SetDataRequest(flood.nextXid(), "/", data, -1));
                    }
                } catch (RuntimeException blocked) {
                    // the socket was closed at the end of the test while the flood was blocked on a full buffer
                }
            });
            t.setDaemon(true);
            t.start();
            for (int i = 0; i < 20; i++) {
                assertWellBehavedClientServed();
            }
            flood.close();
            t.join(10_000);
        }
    }
}
