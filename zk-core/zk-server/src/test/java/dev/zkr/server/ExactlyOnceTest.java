package dev.zkr.server;

import dev.zkr.client.CreateMode;
import dev.zkr.client.ZkException;
import dev.zkr.wire.Message;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A real server over loopback, the raw protocol: writes sent again with their xids on a new connection of the same
 * session — after the first connection's replies were read, or never read — are answered with what they did the
 * first time and applied once (docs/exactly-once.md); also across a restart (the saved replies come back from the
 * log and snapshot).
 */
class ExactlyOnceTest {

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

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void writesSentAgainAreAnsweredWithTheirFirstOutcome() {
        RawClient first = RawClient.session(server.port(), 10_000);
        assertEquals(0, first.call(x -> new Message.CreateRequest(x, "/q", b(""), CreateMode.PERSISTENT)).code());
        Message.Request seq = new Message.CreateRequest(first.nextXid(), "/q/n-", b("a"),
                CreateMode.PERSISTENT_SEQUENTIAL);
        Message.Request set = new Message.SetDataRequest(first.nextXid(), "/q", b("x"), -1);
        Message.Request bad = new Message.SetDataRequest(first.nextXid(), "/q", b("y"), 7);
        Message.Request del = new Message.DeleteRequest(first.nextXid(), "/missing", -1);
        Message.Request[] writes = {seq, set, bad, del};
        Message.Reply[] replies = new Message.Reply[writes.length];
        for (int i = 0; i < writes.length; i++) {
            first.send(writes[i]);
        }
        for (int i = 0; i < writes.length; i++) {
            replies[i] = first.reply(writes[i].xid());
        }
        assertEquals(ZkException.Code.BAD_VERSION.intValue(), replies[2].code());
        assertEquals(ZkException.Code.NO_NODE.intValue(), replies[3].code());
        long id = first.sessionId;
        byte[] pw = first.password;
        first.close();

        try (RawClient again = new RawClient(server.port())) {
            again.handshake(id, pw, 10_000);
            for (Message.Request w : writes) {
                again.send(w);
            }
            for (int i = 0; i < writes.length; i++) {
                Message.Reply r = again.reply(writes[i].xid());
                assertEquals(replies[i].code(), r.code(), "code of " + writes[i]);
                assertEquals(replies[i].body(), r.body(), "body of " + writes[i]);
                assertEquals(replies[i].zxid(), r.zxid(), "zxid of " + writes[i]);
            }
            Message.Reply children = again.call(x -> new Message.GetChildrenRequest(x, "/q", false));
            assertEquals(1, ((Message.ChildrenBody) children.body()).names().length, "the create applied twice");
            Message.Reply data = again.call(x -> new Message.GetDataRequest(x, "/q", false));
            assertEquals(1, ((Message.DataBody) data.body()).stat().version(), "the setData applied twice");
            // a new write after the ones sent again is applied as usual
            Message.Reply next = again.call(x -> new Message.SetDataRequest(x, "/q", b("z"), 1));
            assertEquals(0, next.code());
        }
    }

    /**
     * Acknowledgements (docs/exactly-once.md, The bound): a write sent as an AckedRequest says the lowest xid its client
     * still waits for; the replies saved before it are dropped, and such a write sent again is refused, never applied
     * again. The server says it takes them in its handshake answer.
     */
    @Test
    void acknowledgedWritesAreForgottenAndNeverAppliedAgain() {
        RawClient first = RawClient.session(server.port(), 10_000);
        assertEquals(0, first.call(x -> new Message.CreateRequest(x, "/a", b(""), CreateMode.PERSISTENT)).code());
        Message.Request[] sets = new Message.Request[3];
        for (int i = 0; i < sets.length; i++) {
            sets[i] = new Message.SetDataRequest(first.nextXid(), "/a", b("v" + i), i);
            first.send(new Message.AckedRequest(sets[i].xid(), sets[i])); // one at a time: it waits for this one
            assertEquals(0, first.reply(sets[i].xid()).code());
        }
        long id = first.sessionId;
        byte[] pw = first.password;
        first.close();

        try (RawClient again = new RawClient(server.port())) {
            assertEquals(Message.ACKS_VERSION, again.handshake(id, pw, 10_000).protocolVersion());
            again.send(sets[2]); // the last one is still kept: its client acknowledged up to it, not past it
            Message.Reply kept = again.reply(sets[2].xid());
            assertEquals(0, kept.code());
            assertEquals(3, ((Message.StatBody) kept.body()).stat().version());
            again.send(sets[0]); // acknowledged by the writes after it: its reply is gone, it must not apply again
            Message.Reply gone = again.reply(sets[0].xid());
            assertEquals(ZkException.Code.SYSTEM_ERROR.intValue(), gone.code(), String.valueOf(gone));
            Message.Reply data = again.call(x -> new Message.GetDataRequest(x, "/a", false));
            assertEquals(3, ((Message.DataBody) data.body()).stat().version(), "an acknowledged write applied again");
        }
    }

    /**
     * zkr's client acknowledges: after 2,000 pipelined writes and one more on its own, the server keeps the reply of
     * that last one only (a client that did not acknowledge would leave the last 1,024).
     */
    @Test
    void zkrsClientAcknowledgesSoTheServerKeepsOnlyWritesInFlight() throws Exception {
        try (dev.zkr.client.ZkClient c = dev.zkr.client.ZkClient.builder().connectString("127.0.0.1:" + server.port())
                .sessionTimeout(java.time.Duration.ofSeconds(10)).build()) {
            c.create("/p", null, CreateMode.PERSISTENT);
            List<java.util.concurrent.CompletableFuture<?>> futures = new java.util.ArrayList<>();
            for (int i = 0; i < 2_000; i++) {
                futures.add(c.setDataAsync("/p", b("v" + i), -1));
            }
            for (java.util.concurrent.CompletableFuture<?> f : futures) {
                f.get(30, java.util.concurrent.TimeUnit.SECONDS);
            }
            c.setData("/p", b("last"), -1);
            assertEquals(1, server.savedReplyCount(c.sessionId()), "replies kept past the client's acknowledgement");
        }
    }

    /**
     * A ZooKeeper-protocol client never sends a write again: each of its writes acknowledges itself, so its session
     * keeps one reply however busy it is (not the window's 1,024).
     */
    @Test
    void aZooKeeperClientsSessionKeepsOneReply() throws Exception {
        java.util.concurrent.CountDownLatch connected = new java.util.concurrent.CountDownLatch(1);
        org.apache.zookeeper.ZooKeeper zk = new org.apache.zookeeper.ZooKeeper("127.0.0.1:" + server.port(), 10_000,
                event -> {
                    if (event.getState() == org.apache.zookeeper.Watcher.Event.KeeperState.SyncConnected) {
                        connected.countDown();
                    }
                });
        try {
            assertTrue(connected.await(20, java.util.concurrent.TimeUnit.SECONDS), "not connected");
            zk.create("/z", new byte[0], org.apache.zookeeper.ZooDefs.Ids.OPEN_ACL_UNSAFE,
                    org.apache.zookeeper.CreateMode.PERSISTENT);
            java.util.concurrent.CountDownLatch done = new java.util.concurrent.CountDownLatch(1_500);
            for (int i = 0; i < 1_500; i++) {
                zk.setData("/z", b("v" + i), -1, (rc, path, ctx, stat) -> done.countDown(), null);
            }
            assertTrue(done.await(30, java.util.concurrent.TimeUnit.SECONDS), "setData not all answered");
            zk.setData("/z", b("last"), -1);
            assertEquals(1, server.savedReplyCount(zk.getSessionId()), "replies kept for a ZooKeeper client");
        } finally {
            zk.close();
        }
    }

    @Test
    void aWriteWhoseReplyWasNeverReadIsAppliedOnceAcrossARestart() {
        RawClient first = RawClient.session(server.port(), 30_000);
        Message.Request create = new Message.CreateRequest(first.nextXid(), "/once-", b(""),
                CreateMode.PERSISTENT_SEQUENTIAL);
        first.send(create);
        String path = ((Message.CreateBody) first.reply(create.xid()).body()).path();
        long id = first.sessionId;
        byte[] pw = first.password;
        first.close();
        server.close();
        server = ZkServer.start(ServerFixture.config(dir).build());
        try (RawClient again = new RawClient(server.port())) {
            again.handshake(id, pw, 30_000);
            again.send(create);
            Message.Reply r = again.reply(create.xid());
            assertEquals(0, r.code());
            assertEquals(path, ((Message.CreateBody) r.body()).path());
            Message.Reply children = again.call(x -> new Message.GetChildrenRequest(x, "/", false));
            assertEquals(1, java.util.Arrays.stream(((Message.ChildrenBody) children.body()).names())
                    .filter(n -> n.startsWith("once-")).count(), "the create applied twice across the restart");
        }
    }
}
