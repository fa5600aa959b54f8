package dev.zkr.server;

import dev.zkr.client.CreateMode;
import dev.zkr.client.WatchedEvent;
import dev.zkr.client.ZkException;
import dev.zkr.wire.Message;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/** Requests over the wire against a real server: writes, reads, watches, FIFO, sync. */
class ServerBasicsTest {

    @TempDir
    Path dir;
    ZkServer server;

    @BeforeEach
    void start() {
        server = ZkServer.start(ServerFixture.config(dir).containerCheckInterval(java.time.Duration.ofMillis(50))
                .build());
    }

    @AfterEach
    void stop() {
        server.close();
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void createThenGetData() {
        try (RawClient c = RawClient.session(server.port(), 5000)) {
            assertNotEquals(0, c.sessionId);
            Message.Reply created = c.call(x -> new Message.CreateRequest(x, "/a", b("hello"), CreateMode.PERSISTENT));
            assertEquals(0, created.code());
            assertEquals("/a", ((Message.CreateBody) created.body()).path());
            Message.Reply read = c.call(x -> new Message.GetDataRequest(x, "/a", false));
            assertEquals(0, read.code());
            assertArrayEquals(b("hello"), ((Message.DataBody) read.body()).data());
            Message.Reply missing = c.call(x -> new Message.GetDataRequest(x, "/nope", false));
            assertEquals(ZkException.Code.NO_NODE.intValue(), missing.code());
            Message.Reply dup = c.call(x -> new Message.CreateRequest(x, "/a", b(""), CreateMode.PERSISTENT));
            assertEquals(ZkException.Code.NODE_EXISTS.intValue(), dup.code());
            Message.Reply seq = c.call(x -> new Message.CreateRequest(x, "/a/s-", b(""),
                    CreateMode.PERSISTENT_SEQUENTIAL));
            assertEquals("/a/s-0000000000", ((Message.CreateBody) seq.body()).path());
        }
    }

    @Test
    void readsAfterWritesOfTheSameSessionAreAnsweredInOrderAndSeeTheWrites() {
        try (RawClient c = RawClient.session(server.port(), 5000)) {
            int n = 200;
            int first = c.nextXid();
            // pipeline: create, read, setData, read, ... without waiting
            for (int i = 0; i < n; i++) {
                String path = "/n" + i;
                c.send(new Message.CreateRequest(first + 3 * i, path, b("v0"), CreateMode.PERSISTENT));
                c.send(new Message.GetDataRequest(first + 3 * i + 1, path, false));
                c.send(new Message.SetDataRequest(first + 3 * i + 2, path, b("v1"), 0));
            }
            for (int i = 0; i < n; i++) {
                assertEquals(0, c.reply(first + 3 * i).code());
                Message.Reply read = c.reply(first + 3 * i + 1);
                assertEquals(0, read.code(), "read after own create must see it");
                assertArrayEquals(b("v0"), ((Message.DataBody) read.body()).data());
                assertEquals(0, c.reply(first + 3 * i + 2).code());
            }
        }
    }

    @Test
    void syncIsAnsweredAfterEarlierWritesOfOtherSessions() {
        try (RawClient writer = RawClient.session(server.port(), 5000);
             RawClient reader = RawClient.session(server.port(), 5000)) {
            int base = writer.nextXid();
            for (int i = 0; i < 50; i++) {
                writer.send(new Message.CreateRequest(base + i, "/s" + i, b("x"), CreateMode.PERSISTENT));
            }
            // the writer's requests reached the server once the first reply came back; sync after that
            assertEquals(0, writer.reply(base).code());
            Message.Reply sync = reader.call(x -> new Message.SyncRequest(x, "/"));
            assertEquals(0, sync.code());
            for (int i = 1; i < 50; i++) {
                writer.reply(base + i);
            }
            Message.Reply read = reader.call(x -> new Message.ExistsRequest(x, "/s0", false));
            assertInstanceOf(Message.StatBody.class, read.body());
            // a sync pipelined behind writes of the same session is answered after them
            int w = writer.nextXid();
            int s = writer.nextXid();
            writer.send(new Message.CreateRequest(w, "/before-sync", b("x"), CreateMode.PERSISTENT));
            writer.send(new Message.SyncRequest(s, "/"));
            assertEquals(0, writer.reply(w).code());
            assertEquals(0, writer.reply(s).code());
        }
    }

    @Test
    void watchEventArrivesBeforeTheReplyThatReflectsTheChange() {
        try (RawClient a = RawClient.session(server.port(), 5000)) {
            assertEquals(0, a.call(x -> new Message.CreateRequest(x, "/w", b("1"), CreateMode.PERSISTENT)).code());
            assertEquals(0, a.call(x -> new Message.GetDataRequest(x, "/w", true)).code());
            int x = a.nextXid();
            a.send(new Message.SetDataRequest(x, "/w", b("2"), -1));
            Message.WatchEvent ev = assertInstanceOf(Message.WatchEvent.class, a.receive());
            assertEquals(WatchedEvent.Type.NODE_DATA_CHANGED, ev.type());
            assertEquals("/w", ev.path());
            assertEquals(0, a.reply(x).code());
        }
    }

    @Test
    void expiredSessionLosesItsEphemeralsAndFiresWatches() {
        // the owner sends no pings: its session must outlive a slow fsync on a busy machine, then expire
        try (RawClient owner = RawClient.session(server.port(), 3000);
             RawClient watcher = RawClient.session(server.port(), 5000)) {
            assertEquals(0, owner.call(x -> new Message.CreateRequest(x, "/e", b(""), CreateMode.EPHEMERAL)).code());
            Message.Reply st = watcher.call(x -> new Message.ExistsRequest(x, "/e", true));
            assertEquals(owner.sessionId, ((Message.StatBody) st.body()).stat().ephemeralOwner());
            // the owner goes silent: the server closes it and expires the session
            Message.WatchEvent ev = assertInstanceOf(Message.WatchEvent.class, watcher.receive());
            assertEquals(WatchedEvent.Type.NODE_DELETED, ev.type());
            Message.Reply gone = watcher.call(x -> new Message.ExistsRequest(x, "/e", false));
            assertNull(((Message.StatBody) gone.body()).stat());
            // re-attaching the expired session is refused
            try (RawClient again = new RawClient(server.port())) {
                again.send(new Message.ConnectRequest(Message.PROTOCOL_VERSION, owner.sessionId, owner.password,
                        5000, 0));
                Message.ConnectRefused refused = assertInstanceOf(Message.ConnectRefused.class, again.receive());
                assertEquals(ZkException.Code.SESSION_EXPIRED.intValue(), refused.code());
            }
        }
    }

    @Test
    void sessionReattachesWithItsPasswordAndKeepsEphemerals() {
        RawClient first = RawClient.session(server.port(), 5000);
        assertEquals(0, first.call(x -> new Message.CreateRequest(x, "/keep", b(""), CreateMode.EPHEMERAL)).code());
        long id = first.sessionId;
        byte[] pw = first.password;
        first.close();
        try (RawClient second = new RawClient(server.port())) {
            second.handshake(id, pw, 5000);
            assertEquals(id, second.sessionId);
            Message.Reply st = second.call(x -> new Message.ExistsRequest(x, "/keep", false));
            assertEquals(id, ((Message.StatBody) st.body()).stat().ephemeralOwner());
            assertEquals(0, second.call(Message.CloseSessionRequest::new).code());
            org.junit.jupiter.api.Assertions.assertTrue(second.closedByServer(5000));
        }
        try (RawClient third = RawClient.session(server.port(), 5000)) {
            Message.Reply st = third.call(x -> new Message.ExistsRequest(x, "/keep", false));
            assertNull(((Message.StatBody) st.body()).stat());
        }
    }

    @Test
    void emptiedContainerIsDeletedByTheServer() {
        try (RawClient c = RawClient.session(server.port(), 5000)) {
            assertEquals(0, c.call(x -> new Message.CreateRequest(x, "/box", b(""), CreateMode.CONTAINER)).code());
            assertEquals(0, c.call(x -> new Message.CreateRequest(x, "/box/item", b(""), CreateMode.PERSISTENT))
                    .code());
            assertEquals(0, c.call(x -> new Message.ExistsRequest(x, "/box", true)).code());
            assertEquals(0, c.call(x -> new Message.DeleteRequest(x, "/box/item", -1)).code());
            Message.WatchEvent ev = assertInstanceOf(Message.WatchEvent.class, c.receive());
            assertEquals(WatchedEvent.Type.NODE_DELETED, ev.type());
            assertEquals("/box", ev.path());
        }
    }

    @Test
    void setWatchesAfterReconnectFiresMissedEventsAndRegistersTheRest() {
        RawClient first = RawClient.session(server.port(), 5000);
        assertEquals(0, first.call(x -> new Message.CreateRequest(x, "/changed", b("1"), CreateMode.PERSISTENT))
                .code());
        assertEquals(0, first.call(x -> new Message.CreateRequest(x, "/stable", b("1"), CreateMode.PERSISTENT))
                .code());
        long seen = first.call(x -> new Message.GetDataRequest(x, "/changed", true)).zxid();
        long id = first.sessionId;
        byte[] pw = first.password;
        first.close();
        try (RawClient other = RawClient.session(server.port(), 5000);
             RawClient back = new RawClient(server.port())) {
            assertEquals(0, other.call(x -> new Message.SetDataRequest(x, "/changed", b("2"), -1)).code());
            back.handshake(id, pw, 5000);
            int x = back.nextXid();
            back.send(new Message.SetWatchesRequest(x, seen, new String[]{"/changed", "/stable"}, new String[0],
                    new String[0], new String[0], new String[0]));
            Message.WatchEvent missed = assertInstanceOf(Message.WatchEvent.class, back.receive());
            assertEquals(WatchedEvent.Type.NODE_DATA_CHANGED, missed.type());
            assertEquals("/changed", missed.path());
            assertEquals(0, back.reply(x).code());
            assertEquals(0, other.call(y -> new Message.SetDataRequest(y, "/stable", b("2"), -1)).code());
            Message.WatchEvent later = assertInstanceOf(Message.WatchEvent.class, back.receive());
            assertEquals("/stable", later.path());
        }
    }

    @Test
    void writesAreAcknowledgedOnlyAfterTheirTxnIsFsynced() {
        try (RawClient c = RawClient.session(server.port(), 10_000)) {
            for (int i = 0; i < 100; i++) {
                String path = "/d" + i;
                Message.Reply r = c.call(x -> new Message.CreateRequest(x, path, new byte[100], CreateMode.PERSISTENT));
                assertEquals(0, r.code());
                long czxid = ((Message.CreateBody) r.body()).stat().czxid();
                long durable = server.durableZxid();
                org.junit.jupiter.api.Assertions.assertTrue(durable >= czxid,
                        "create 0x" + Long.toHexString(czxid) + " acknowledged before its fsync (durable 0x"
                                + Long.toHexString(durable) + ")");
            }
        }
    }
}
