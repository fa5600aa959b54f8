package dev.zkr.testkit.ensemble;

import dev.zkr.client.CreateMode;
import dev.zkr.client.ZkClient;
import dev.zkr.client.ZkException;
import dev.zkr.testkit.TestEnsemble;
import dev.zkr.wire.Message;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

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

    /**
     * A zkr client whose session was re-attached elsewhere behind its back (in the chaos series: a paused server
     * woke and handled a handshake the client had given up on) gets SESSION_MOVED for its next write, which was not
     * applied: it re-attaches and sends the write again, which is applied once and answered OK (exactly-once writes,
     * docs/exactly-once.md); its session is owned by its server again, so the other connection is the straggler now.
     */
    @Test
    void aZkrClientWhoseSessionMovedBehindItsBackReattachesAndItsWriteIsAppliedOnce() throws Exception {
        try (TestEnsemble e = TestEnsemble.builder().servers(3).start()) {
            int[] followers = others(3, e.leader());
            try (ZkClient client = e.newClient(b -> b.connectString(e.connectString(followers[0])));
                 WireClient thief = new WireClient(e.port(followers[1]))) {
                client.create("/first", new byte[0], CreateMode.PERSISTENT);
                // the handshake alone takes the session (it sends no write: the xids are the client's)
                assertInstanceOf(Message.ConnectResponse.class,
                        thief.handshake(client.sessionId(), password(client), 5000, 0));

                assertEquals("/written", client.create("/written", new byte[0], CreateMode.PERSISTENT),
                        "the client's write after its session moved away");
                thief.send(new Message.CreateRequest(1_000_000, "/late", new byte[0], CreateMode.PERSISTENT));
                assertEquals(ZkException.Code.SESSION_MOVED.intValue(), thief.reply().code(),
                        "the client re-attached: the other connection is the straggler now");
                client.sync("/");
                assertEquals(List.of("first", "written"), sorted(client.getChildren("/")).stream()
                        .filter(n -> !n.equals("zookeeper")).toList());
            }
        }
    }

    private static List<String> sorted(List<String> names) {
        List<String> copy = new ArrayList<>(names);
        Collections.sort(copy);
        return copy;
    }

    /** The session's password, which the client keeps to itself (the test plays a second connection's part). */
    private static byte[] password(ZkClient client) throws ReflectiveOperationException {
        Field connection = client.getClass().getDeclaredField("connection");
        connection.setAccessible(true);
        Object manager = connection.get(client);
        Field password = manager.getClass().getDeclaredField("password");
        password.setAccessible(true);
        return ((byte[]) password.get(manager)).clone();
    }

    private static Message.Reply create(WireClient c, String path) {
        c.send(new Message.CreateRequest(c.nextXid(), path, new byte[0], CreateMode.PERSISTENT));
        return c.reply();
    }
}
