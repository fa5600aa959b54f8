package dev.zkr.testkit.ensemble;

import dev.zkr.client.CreateMode;
import dev.zkr.client.ZkException;
import dev.zkr.testkit.TestEnsemble;
import dev.zkr.wire.Message;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static dev.zkr.testkit.ensemble.Ensembles.others;
import static dev.zkr.testkit.ensemble.Ensembles.syncedRead;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * A session re-attached at another server: a write still arriving through its old connection (a straggler) is
 * refused as SESSION_MOVED and never applied, while the session goes on at its new server. On a follower the old
 * connection stays open and answers SESSION_MOVED; on the leader the old connection is closed.
 */
@Timeout(120)
class SessionMovedTest {

    @Test
    void aStragglerThroughTheOldFollowerIsRefusedAsSessionMoved() throws Exception {
        try (TestEnsemble e = TestEnsemble.builder().servers(3).start()) {
            int[] followers = others(3, e.leader());
            try (WireClient old = new WireClient(e.port(followers[0]));
                 WireClient moved = new WireClient(e.port(followers[1]))) {
                assertInstanceOf(Message.ConnectResponse.class, old.handshake(0, null, 5000, 0));
                Message.Reply first = create(old, "/first");
                assertEquals(0, first.code(), "create through the first server: " + first);

                assertInstanceOf(Message.ConnectResponse.class,
                        moved.handshake(old.sessionId, old.password, 5000, first.zxid()));
                Message.Reply second = create(moved, "/second");
                assertEquals(0, second.code(), "create through the new server: " + second);

                Message.Reply straggler = create(old, "/straggler");
                assertEquals(ZkException.Code.SESSION_MOVED.intValue(), straggler.code(),
                        "a write through the old server: " + straggler);
                assertEquals(0, create(moved, "/third").code(), "the session goes on at its new server");
                assertNull(syncedRead(e, followers[1], "/straggler"), "the straggler was applied");
                assertNotNull(syncedRead(e, followers[0], "/third"));
            }
        }
    }

    @Test
    void theLeaderClosesTheOldConnectionOfASessionThatMoved() throws Exception {
        try (TestEnsemble e = TestEnsemble.builder().servers(3).start()) {
            int leader = e.leader();
            int follower = others(3, leader)[0];
            try (WireClient old = new WireClient(e.port(leader));
                 WireClient moved = new WireClient(e.port(follower))) {
                assertInstanceOf(Message.ConnectResponse.class, old.handshake(0, null, 5000, 0));
                Message.Reply first = create(old, "/first");
                assertEquals(0, first.code(), "create through the leader: " + first);

                assertInstanceOf(Message.ConnectResponse.class,
                        moved.handshake(old.sessionId, old.password, 5000, first.zxid()));
                assertEquals(0, create(moved, "/second").code(), "create through the new server");
                // the old connection is closed: a straggler sent on it is never answered, nor applied
                assertThrows(java.io.UncheckedIOException.class, () -> {
                    old.send(new Message.CreateRequest(old.nextXid(), "/straggler", new byte[0],
                            CreateMode.PERSISTENT));
                    old.reply();
                }, "the leader kept the old connection of a moved session");
                assertEquals(0, create(moved, "/third").code());
                assertNull(syncedRead(e, leader, "/straggler"), "the straggler was applied");
            }
        }
    }

    private static Message.Reply create(WireClient c, String path) {
        c.send(new Message.CreateRequest(c.nextXid(), path, new byte[0], CreateMode.PERSISTENT));
        return c.reply();
    }
}
