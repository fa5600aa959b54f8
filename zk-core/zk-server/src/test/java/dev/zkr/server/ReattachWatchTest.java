package dev.zkr.server;

import dev.zkr.client.CreateMode;
import dev.zkr.client.WatchedEvent;
import dev.zkr.wire.Message;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

/**
 * A session that re-attaches on a new connection while the server still holds its old one (the old one's close
 * not seen yet) keeps exactly the watches the client re-registers (SetWatches), as in ZooKeeper where watches
 * belong to the connection: none set through the old connection survive, e.g. one set by a read whose reply the
 * client never got, which would otherwise stay on the server and fire an event the client expects nowhere.
 */
class ReattachWatchTest {

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
    void aReattachKeepsOnlyTheWatchesTheClientSetsAgain() {
        try (RawClient old = RawClient.session(server.port(), 5000);
             RawClient writer = RawClient.session(server.port(), 5000);
             RawClient fresh = new RawClient(server.port())) {
            assertEquals(0, old.call(x -> new Message.ExistsRequest(x, "/lost", true)).code());
            assertEquals(0, old.call(x -> new Message.ExistsRequest(x, "/kept", true)).code());
            fresh.handshake(old.sessionId, old.password, 5000); // the old connection is still open
            assertEquals(0, fresh.call(x -> new Message.SetWatchesRequest(x, 0, new String[0],
                    new String[]{"/kept"}, new String[0], new String[0], new String[0])).code());

            assertEquals(0, writer.call(x -> new Message.CreateRequest(x, "/lost", new byte[0],
                    CreateMode.PERSISTENT)).code());
            assertEquals(0, writer.call(x -> new Message.CreateRequest(x, "/kept", new byte[0],
                    CreateMode.PERSISTENT)).code());
            Message.WatchEvent event = assertInstanceOf(Message.WatchEvent.class, fresh.receive(),
                    "the first message after the creates is the event of the watch set again, not of /lost");
            assertEquals(WatchedEvent.Type.NODE_CREATED, event.type());
            assertEquals("/kept", event.path());
            int xid = fresh.nextXid();
            fresh.send(new Message.PingRequest(xid));
            fresh.reply(xid); // nothing else came before it
        }
    }
}
