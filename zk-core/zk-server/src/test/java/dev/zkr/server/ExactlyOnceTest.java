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

import static org.junit.jupiter.api.Assertions.assertEquals;

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
