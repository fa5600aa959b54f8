package dev.zkr.server;

import dev.zkr.client.CreateMode;
import dev.zkr.client.ZkException;
import dev.zkr.wire.Message;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every way the server ends a connection sends whole, decodable messages and then closes: never an empty frame
 * (which clients report as "undecodable frame of 0 bytes"). {@link RawClient#readUntilClosed} fails on one.
 */
class ConnectionCloseTest {

    private static final int WAIT_MS = 10_000;

    @TempDir
    Path dir;
    ZkServer server;

    @BeforeEach
    void start() {
        server = ZkServer.start(ServerFixture.config(dir).build());
    }

    @AfterEach
    void stop() {
        server.close();
    }

    @Test
    void closeSessionIsAnsweredThenTheConnectionCloses() {
        try (RawClient c = RawClient.session(server.port(), 5000)) {
            assertEquals(0, c.call(x -> new Message.CreateRequest(x, "/e", new byte[]{1}, CreateMode.EPHEMERAL))
                    .code());
            int xid = c.nextXid();
            c.send(new Message.CloseSessionRequest(xid));
            List<Message> tail = c.readUntilClosed(WAIT_MS);
            assertEquals(1, tail.size(), "only the close reply before the close: " + tail);
            Message.Reply reply = assertInstanceOf(Message.Reply.class, tail.get(0));
            assertEquals(xid, reply.xid());
            assertEquals(0, reply.code());
        }
    }

    @Test
    void expiredSessionConnectionIsClosed() {
        try (RawClient c = RawClient.session(server.port(), 5000)) {
            assertEquals(0, c.call(x -> new Message.CreateRequest(x, "/e", new byte[0], CreateMode.EPHEMERAL))
                    .code());
            assertEquals(0, c.call(x -> new Message.ExistsRequest(x, "/e", true)).code());
            assertTrue(server.expireSession(c.sessionId));
            c.readUntilClosed(WAIT_MS);
        }
    }

    @Test
    void refusedHandshakeIsAnsweredThenTheConnectionCloses() {
        try (RawClient c = new RawClient(server.port())) {
            c.send(new Message.ConnectRequest(Message.PROTOCOL_VERSION, 0x4242L, new byte[16], 5000, 0));
            List<Message> tail = c.readUntilClosed(WAIT_MS);
            assertEquals(1, tail.size(), tail.toString());
            Message.ConnectRefused refused = assertInstanceOf(Message.ConnectRefused.class, tail.get(0));
            assertEquals(ZkException.Code.SESSION_EXPIRED.intValue(), refused.code());
        }
    }

    @Test
    void protocolErrorIsSentThenTheConnectionCloses() {
        try (RawClient c = new RawClient(server.port())) {
            c.send(new Message.GetDataRequest(1, "/", false));
            List<Message> tail = c.readUntilClosed(WAIT_MS);
            assertEquals(1, tail.size(), tail.toString());
            assertInstanceOf(Message.ProtocolError.class, tail.get(0));
        }
    }

    @Test
    void reattachElsewhereClosesTheOldConnection() {
        try (RawClient first = RawClient.session(server.port(), 5000);
             RawClient second = new RawClient(server.port())) {
            second.handshake(first.sessionId, first.password, 5000);
            first.readUntilClosed(WAIT_MS);
            assertEquals(0, second.call(x -> new Message.ExistsRequest(x, "/", false)).code());
        }
    }

    @Test
    void serverShutdownClosesConnections() {
        try (RawClient c = RawClient.session(server.port(), 5000)) {
            assertEquals(0, c.call(x -> new Message.ExistsRequest(x, "/", false)).code());
            server.close();
            c.readUntilClosed(WAIT_MS);
        }
    }
}
