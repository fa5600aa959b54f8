package dev.zkr.contract;

import dev.zkr.client.ConnectionState;
import dev.zkr.client.CreateMode;
import dev.zkr.client.WatchedEvent.Type;
import dev.zkr.client.ZkClient;
import dev.zkr.client.ZkException;
import dev.zkr.server.ServerConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static dev.zkr.contract.NodeContractTest.bytes;
import static dev.zkr.contract.NodeContractTest.failure;
import static dev.zkr.contract.NodeContractTest.waitUntil;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The session part of the contract and the client's connection handling, against a real server. */
class SessionContractTest {

    @TempDir
    Path dir;
    TestServer server;

    @BeforeEach
    void start() {
        server = TestServer.start(dir);
    }

    @AfterEach
    void stop() {
        server.close();
    }

    @Test
    void closeRemovesEphemeralsAndFiresTheirWatches() {
        ZkClient owner = server.client();
        ZkClient observer = server.client();
        owner.create("/eph", bytes("x"), CreateMode.EPHEMERAL);
        RecordingWatcher w = new RecordingWatcher();
        assertNotNull(observer.exists("/eph", w));
        owner.close();
        w.expect(Type.NODE_DELETED, "/eph");
        assertNull(observer.exists("/eph"));
    }

    @Test
    void closeReportsLostOnceThenEveryCallFailsWithClosed() {
        ZkClient c = server.client();
        StateRecorder states = new StateRecorder();
        c.addConnectionStateListener(states);
        c.create("/p", null, CreateMode.PERSISTENT);
        assertFalse(c.isClosed());
        c.close();
        c.close();
        assertEquals(List.of(ConnectionState.LOST), states.all());
        assertEquals(ConnectionState.LOST, c.state());
        assertTrue(c.isClosed());
        assertInstanceOf(ZkException.Closed.class, failure(c.getDataAsync("/p", null)));
        assertInstanceOf(ZkException.Closed.class, failure(c.createAsync("/q", null, CreateMode.PERSISTENT)));
        assertInstanceOf(ZkException.Closed.class, failure(c.multiAsync(List.of())));
        assertThrows(ZkException.Closed.class, () -> c.exists("/p"));
        assertThrows(ZkException.Closed.class, () -> c.sync("/"));
        assertThrows(ZkException.Closed.class, () -> c.setData("/p", null, -1));
        assertTrue(c.watchedPaths().isEmpty());
        assertNotNull(server.client().exists("/p"));
    }

    @Test
    void closedClientsLeaveNoThreadBehind() {
        List<ZkClient> clients = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            clients.add(server.client());
        }
        clients.forEach(ZkClient::close);
        server.close(); // also closes the helper's clients
        waitUntil(() -> Thread.getAllStackTraces().keySet().stream()
                .noneMatch(t -> t.isAlive() && t.getName().startsWith("zkr-client-")), "client threads left: "
                + Thread.getAllStackTraces().keySet().stream().map(Thread::getName)
                .filter(n -> n.startsWith("zkr-client-")).toList());
    }

    @Test
    void closeFromAWatcherDoesNotDeadlock() throws Exception {
        ZkClient c = server.client();
        c.create("/w", null, CreateMode.PERSISTENT);
        CountDownLatch closed = new CountDownLatch(1);
        c.getData("/w", e -> {
            c.close();
            closed.countDown();
        });
        server.client().setData("/w", null, -1);
        assertTrue(closed.await(10, TimeUnit.SECONDS));
        assertEquals(ConnectionState.LOST, c.state());
    }

    @Test
    void expiredSessionIsReportedLostThenANewSessionStarts() throws Exception {
        ZkClient c = server.client();
        ZkClient observer = server.client();
        StateRecorder states = new StateRecorder();
        c.addConnectionStateListener(states);
        c.create("/mine", null, CreateMode.EPHEMERAL);
        c.create("/data", null, CreateMode.PERSISTENT);
        RecordingWatcher own = new RecordingWatcher();
        c.getData("/data", own);
        RecordingWatcher seen = new RecordingWatcher();
        observer.exists("/mine", seen);
        long old = c.sessionId();

        assertTrue(server.expire(old));
        seen.expect(Type.NODE_DELETED, "/mine");
        states.expect(ConnectionState.SUSPENDED);
        states.expect(ConnectionState.LOST);
        states.expect(ConnectionState.CONNECTED);
        assertNotEquals(old, c.sessionId());
        assertNotEquals(0, c.sessionId());
        assertTrue(c.watchedPaths().isEmpty(), "watches of the expired session are dropped");
        assertNull(c.exists("/mine"));
        c.create("/mine", null, CreateMode.EPHEMERAL);
        assertEquals(c.sessionId(), observer.exists("/mine").ephemeralOwner());
        observer.setData("/data", null, -1);
        c.sync("/");
        assertEquals(0, own.pending());
    }

    @Test
    void withoutRenewalAnExpiredClientStaysLost() {
        ZkClient c = server.client(server.builder().renewSessionOnExpiry(false));
        StateRecorder states = new StateRecorder();
        c.addConnectionStateListener(states);
        assertTrue(server.expire(c.sessionId()));
        states.expect(ConnectionState.SUSPENDED);
        states.expect(ConnectionState.LOST);
        assertEquals(ConnectionState.LOST, c.state());
        assertInstanceOf(ZkException.SessionExpired.class, failure(c.getDataAsync("/", null)));
        assertThrows(ZkException.SessionExpired.class, () -> c.create("/x", null, CreateMode.PERSISTENT));
        c.close();
        assertEquals(List.of(ConnectionState.SUSPENDED, ConnectionState.LOST), states.all());
    }

    @Test
    void reconnectWithinTheTimeoutKeepsSessionEphemeralsAndWatches() throws Exception {
        ZkClient c = server.client();
        StateRecorder states = new StateRecorder();
        c.addConnectionStateListener(states);
        c.create("/eph", null, CreateMode.EPHEMERAL);
        c.create("/watched", null, CreateMode.PERSISTENT);
        RecordingWatcher data = new RecordingWatcher();
        c.getData("/watched", data);
        RecordingWatcher child = new RecordingWatcher();
        c.getChildren("/watched", child);
        RecordingWatcher created = new RecordingWatcher();
        c.exists("/later", created);
        long session = c.sessionId();

        server.kill();
        states.expect(ConnectionState.SUSPENDED);
        CompletableFuture<String> whileDown = c.createAsync("/queued", null, CreateMode.PERSISTENT)
                .thenApply(dev.zkr.client.Created::path);
        assertFalse(whileDown.isDone());
        server.restart();
        states.expect(ConnectionState.RECONNECTED);
        assertEquals("/queued", whileDown.get(10, TimeUnit.SECONDS), "a request issued while disconnected waits");
        assertEquals(session, c.sessionId());
        assertEquals(session, c.exists("/eph").ephemeralOwner());
        assertEquals(Set.of("/watched", "/later"), Set.copyOf(c.watchedPaths()));

        ZkClient other = server.client();
        other.setData("/watched", bytes("changed"), -1);
        data.expect(Type.NODE_DATA_CHANGED, "/watched");
        other.create("/watched/k", null, CreateMode.PERSISTENT);
        child.expect(Type.NODE_CHILDREN_CHANGED, "/watched");
        other.create("/later", null, CreateMode.PERSISTENT);
        created.expect(Type.NODE_CREATED, "/later");
        assertEquals(session, other.exists("/eph").ephemeralOwner());
    }

    /**
     * Exactly-once (docs/exactly-once.md): creates in flight when the server is killed are sent again with their xids
     * once the session is re-attached to the restarted server; each is answered with its real result — the saved
     * reply of one applied before the crash, a new apply of one that was not — so every create succeeds and none is
     * applied twice (a sequential create applied twice would leave an extra child).
     */
    @Test
    void inFlightWritesAreSentAgainAndAppliedOnceWhenTheServerDies() throws Exception {
        ZkClient c = server.client();
        StateRecorder states = new StateRecorder();
        c.addConnectionStateListener(states);
        c.create("/load", null, CreateMode.PERSISTENT);
        List<CompletableFuture<?>> futures = new ArrayList<>();
        for (int i = 0; i < 2000; i++) {
            futures.add(c.createAsync("/load/n-", new byte[100], CreateMode.PERSISTENT_SEQUENTIAL));
        }
        server.kill();
        states.expect(ConnectionState.SUSPENDED);
        server.restart();
        states.expect(ConnectionState.RECONNECTED);
        java.util.Set<String> created = new java.util.HashSet<>();
        for (CompletableFuture<?> f : futures) {
            created.add(((dev.zkr.client.Created) f.get(30, TimeUnit.SECONDS)).path()); // no ConnectionLoss
        }
        assertEquals(2000, created.size(), "two creates answered with the same node");
        assertEquals(2000, c.getChildren("/load").size(), "a create applied twice, or an acknowledged one lost");
    }

    @Test
    void requestsWhileDisconnectedTimeOut() {
        ZkClient c = server.client(server.builder().requestTimeout(Duration.ofMillis(300)));
        StateRecorder states = new StateRecorder();
        c.addConnectionStateListener(states);
        server.kill();
        states.expect(ConnectionState.SUSPENDED);
        assertThrows(ZkException.OperationTimeout.class, () -> c.exists("/"));
    }

    @Test
    void heartbeatsKeepAnIdleSessionAlive() throws Exception {
        // 3 s: a ping's answer may take up to 1 s (timeout / 3) before the client calls the connection dead, so a
        // scheduling stall on a loaded machine does not look like a dead server; idle for longer than the timeout
        ZkClient c = server.client(server.builder().sessionTimeout(Duration.ofMillis(3000)));
        assertEquals(Duration.ofMillis(3000), c.sessionTimeout());
        StateRecorder states = new StateRecorder();
        c.addConnectionStateListener(states);
        c.create("/idle", null, CreateMode.EPHEMERAL);
        assertNull(states.poll(4000), "an idle client must keep its session: " + states.all());
        assertEquals(c.sessionId(), server.client().exists("/idle").ephemeralOwner());
    }

    @Test
    void failsOverPastADeadServer() throws IOException {
        int dead = deadPort();
        String connect = "127.0.0.1:" + dead + "," + server.connectString();
        for (int i = 0; i < 4; i++) {
            ZkClient c = server.client(server.builder().connectString(connect));
            assertTrue(c.state().isConnected());
            c.create("/fo-" + i, null, CreateMode.EPHEMERAL);
        }
    }

    @Test
    void connectFailsWithConnectionLossWhenNoServerAnswers() throws IOException {
        int dead = deadPort();
        long start = System.nanoTime();
        ZkException e = assertThrows(ZkException.ConnectionLoss.class, () -> ZkClient.builder()
                .connectString("127.0.0.1:" + dead).connectTimeout(Duration.ofMillis(400)).build());
        assertTrue(e.getMessage().contains("127.0.0.1"), e.getMessage());
        assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(5));
    }

    @Test
    void theServersSmallerDataLimitApplies(@TempDir Path other) {
        try (TestServer small = TestServer.start(ServerConfig.builder(other).maxDataSize(1000))) {
            ZkClient c = small.client();
            assertEquals(1000, c.maxDataSize());
            c.create("/fits", new byte[1000], CreateMode.PERSISTENT);
            ZkException e = failure(c.createAsync("/too", new byte[1001], CreateMode.PERSISTENT));
            assertInstanceOf(ZkException.DataTooLarge.class, e);
            assertTrue(c.state().isConnected());
        }
    }

    @Test
    void listenersWithAnExecutorRunThere() throws Exception {
        ZkClient c = server.client();
        AtomicReference<String> thread = new AtomicReference<>();
        CountDownLatch lost = new CountDownLatch(1);
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newSingleThreadExecutor(
                r -> new Thread(r, "my-listener-pool"));
        try {
            c.addConnectionStateListener((client, s) -> {
                thread.set(Thread.currentThread().getName());
                lost.countDown();
            }, pool);
            StateRecorder removed = new StateRecorder();
            c.addConnectionStateListener(removed);
            c.removeConnectionStateListener(removed);
            c.close();
            assertTrue(lost.await(5, TimeUnit.SECONDS));
            assertEquals("my-listener-pool", thread.get());
            assertEquals(List.of(), removed.all());
        } finally {
            pool.shutdownNow();
        }
    }

    private static int deadPort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
