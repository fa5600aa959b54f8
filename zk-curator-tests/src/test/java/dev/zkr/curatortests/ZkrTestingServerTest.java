package dev.zkr.curatortests;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingCluster;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.client.FourLetterWordMain;
import org.junit.jupiter.api.Test;

import java.io.File;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The zkr run's harness itself: this module's {@link TestingServer} and {@link TestingCluster} are the ones on the
 * class path, start zkr servers (their four-letter {@code srvr} answer names zkr), and behave as curator-test's do
 * where Curator's tests depend on it: stop/restart keeps data and lets a client resume its session, close deletes
 * the temporary directory, a cluster survives the kill of one member. Runs only in the zkr run (the ZooKeeper run
 * has none of this module's test classes).
 */
class ZkrTestingServerTest {

    private static final int WAIT_S = 30;

    @Test
    void testingServerIsZkr() throws Exception {
        try (TestingServer server = new TestingServer()) {
            String srvr = FourLetterWordMain.send4LetterWord("127.0.0.1", server.getPort(), "srvr");
            assertTrue(srvr.contains("-zkr-"), srvr);
            try (CuratorFramework client = client(server.getConnectString())) {
                client.create().forPath("/a", "x".getBytes());
                assertArrayEquals("x".getBytes(), client.getData().forPath("/a"));
            }
        }
    }

    @Test
    void stopAndRestartKeepTheDataAndTheSession() throws Exception {
        try (TestingServer server = new TestingServer();
             CuratorFramework client = client(server.getConnectString())) {
            BlockingQueue<ConnectionState> states = new LinkedBlockingQueue<>();
            client.getConnectionStateListenable().addListener((c, s) -> states.add(s));
            client.create().forPath("/persistent", "p".getBytes());
            client.create().withMode(CreateMode.EPHEMERAL).forPath("/ephemeral");
            long session = client.getZookeeperClient().getZooKeeper().getSessionId();

            server.stop();
            awaitState(states, ConnectionState.SUSPENDED);
            server.restart();
            awaitState(states, ConnectionState.RECONNECTED);

            assertEquals(session, client.getZookeeperClient().getZooKeeper().getSessionId());
            assertArrayEquals("p".getBytes(), client.getData().forPath("/persistent"));
            assertNotNull(client.checkExists().forPath("/ephemeral"), "the resumed session's ephemeral node");
        }
    }

    @Test
    void aNewServerOnTheSameDirectoryAndPortSeesTheData() throws Exception {
        InstanceSpec spec = new InstanceSpec(null, 0, -1, -1, false, -1);
        File dir = spec.getDataDirectory();
        int port;
        try (TestingServer server = new TestingServer(spec, true);
             CuratorFramework client = client(server.getConnectString())) {
            port = server.getPort();
            client.create().forPath("/kept", "k".getBytes());
        }
        try (TestingServer server = new TestingServer(port, dir);
             CuratorFramework client = client(server.getConnectString())) {
            assertArrayEquals("k".getBytes(), client.getData().forPath("/kept"));
        }
        assertFalse(dir.exists(), "close() deletes the temporary directory");
    }

    @Test
    void aClusterServesThroughTheKillOfOneMember() throws Exception {
        try (TestingCluster cluster = new TestingCluster(3)) {
            cluster.start();
            assertTrue(cluster.getServers().get(0).zkrServer() != null);
            try (CuratorFramework client = client(cluster.getConnectString())) {
                client.create().forPath("/before", "b".getBytes());
                InstanceSpec connected = cluster.findConnectionInstance(client.getZookeeperClient().getZooKeeper());
                assertNotNull(connected);
                assertTrue(cluster.killServer(connected));
                client.create().forPath("/after", "a".getBytes());
                assertTrue(cluster.restartServer(connected));
                assertArrayEquals("b".getBytes(), client.getData().forPath("/before"));
            }
        }
    }

    /** Waits for {@code wanted} among the states the listener reports (the first CONNECTED may come late). */
    private static void awaitState(BlockingQueue<ConnectionState> states, ConnectionState wanted)
            throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_S);
        while (true) {
            ConnectionState s = states.poll(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
            assertNotNull(s, "no connection state " + wanted + " within " + WAIT_S + " s");
            if (s == wanted) {
                return;
            }
            assertTrue(s == ConnectionState.CONNECTED, "unexpected state " + s + " while waiting for " + wanted);
        }
    }

    private static CuratorFramework client(String connect) throws InterruptedException {
        CuratorFramework client = CuratorFrameworkFactory.builder().connectString(connect)
                .sessionTimeoutMs(15_000).connectionTimeoutMs(10_000).retryPolicy(new RetryOneTime(100)).build();
        client.start();
        assertTrue(client.blockUntilConnected(WAIT_S, TimeUnit.SECONDS), "connected to " + connect);
        return client;
    }
}
