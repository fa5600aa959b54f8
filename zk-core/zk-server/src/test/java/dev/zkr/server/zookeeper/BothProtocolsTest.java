package dev.zkr.server.zookeeper;

import dev.zkr.client.ZkClient;
import dev.zkr.server.ServerFixture;
import dev.zkr.server.StderrCapture;
import dev.zkr.server.ZkServer;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * zkr's native client and the Apache ZooKeeper client on the same client port of one real server at the same time:
 * each sees the other's writes and gets the watch events of the other's changes; and a reply too large for a
 * ZooKeeper client becomes an error for that request alone, the connection kept.
 */
@Timeout(120)
class BothProtocolsTest {

    @TempDir
    Path dir;

    @Test
    void aNativeAndAZooKeeperClientShareThePort() throws Exception {
        try (ZkServer server = ZkServer.start(ServerFixture.config(dir).build());
             ZkClient nativeClient = ZkClient.builder().connectString(server.connectString())
                     .sessionTimeout(Duration.ofSeconds(10)).build()) {
            ApacheClients.Events events = new ApacheClients.Events();
            ZooKeeper zk = ApacheClients.connect(server.connectString(), 10_000, events);
            try {
                nativeClient.create("/from-native", new byte[] {1}, dev.zkr.client.CreateMode.PERSISTENT);
                assertArrayEquals(new byte[] {1}, zk.getData("/from-native", true, null));
                CompletableFuture<dev.zkr.client.WatchedEvent> nativeSaw = new CompletableFuture<>();
                nativeClient.exists("/from-zk", nativeSaw::complete);

                zk.create("/from-zk", new byte[] {2}, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
                dev.zkr.client.WatchedEvent created = nativeSaw.get(20, TimeUnit.SECONDS);
                assertEquals(dev.zkr.client.WatchedEvent.Type.NODE_CREATED, created.type());
                assertArrayEquals(new byte[] {2}, nativeClient.getData("/from-zk").data());

                nativeClient.setData("/from-native", new byte[] {3}, -1);
                assertEquals(Watcher.Event.EventType.NodeDataChanged, events.next().getType());
                assertEquals(2, server.clientConnections());
            } finally {
                zk.close(5_000);
            }
        }
    }

    @Test
    void aReplyOverTheZooKeeperClientsLimitIsAnErrorAndTheConnectionStays() throws Exception {
        try (ZkServer server = ZkServer.start(ServerFixture.config(dir).maxDataSize(2 << 20).build());
             ZkClient nativeClient = ZkClient.builder().connectString(server.connectString())
                     .sessionTimeout(Duration.ofSeconds(10)).build()) {
            nativeClient.create("/big", new byte[ZooKeeperTranslator.CLIENT_MAX_FRAME],
                    dev.zkr.client.CreateMode.PERSISTENT);
            nativeClient.create("/small", new byte[] {5}, dev.zkr.client.CreateMode.PERSISTENT);
            ApacheClients.Events events = new ApacheClients.Events();
            ZooKeeper zk = ApacheClients.connect(server.connectString(), 10_000, events);
            String log;
            try (StderrCapture err = new StderrCapture()) {
                long session = zk.getSessionId();
                assertThrows(KeeperException.BadArgumentsException.class, () -> zk.getData("/big", false, null));
                assertArrayEquals(new byte[] {5}, zk.getData("/small", false, null));
                assertEquals(session, zk.getSessionId());
                assertTrue(!events.states.contains(Watcher.Event.KeeperState.Disconnected),
                        "the client lost its connection: " + events.states);
                ApacheClients.await("the WARN line", () -> err.text().contains("refused: over the frame limit"));
                log = err.text();
            } finally {
                zk.close(5_000);
            }
            assertTrue(log.contains("jute.maxbuffer"), log);
        }
    }
}
