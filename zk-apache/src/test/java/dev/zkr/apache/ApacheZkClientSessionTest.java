package dev.zkr.apache;

import dev.zkr.client.ConnectionState;
import dev.zkr.client.CreateMode;
import dev.zkr.client.WatchedEvent;
import dev.zkr.client.WatcherType;
import dev.zkr.client.ZkException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import static dev.zkr.client.ConnectionState.CONNECTED;
import static dev.zkr.client.ConnectionState.LOST;
import static dev.zkr.client.ConnectionState.RECONNECTED;
import static dev.zkr.client.ConnectionState.SUSPENDED;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Connection states, session expiry and renewal, and close() of {@link ApacheZkClient}, with server faults. */
class ApacheZkClientSessionTest {

    private EmbeddedZooKeeper server;
    private ApacheZkClient client;

    @BeforeEach
    void start() {
        server = EmbeddedZooKeeper.start();
        client = ApacheZkClient.connect(server.connectString(), Duration.ofSeconds(10));
    }

    @AfterEach
    void stop() {
        client.close();
        server.close();
    }

    @Test
    void firstSessionIsConnected() {
        assertEquals(CONNECTED, client.state());
        assertNotEquals(0, client.sessionId());
        assertEquals(Duration.ofSeconds(10), client.sessionTimeout());
    }

    /** ZooKeeper fails a write in flight on a dropped connection with ConnectionLoss: recipes keep their workarounds. */
    @Test
    void hasNoExactlyOnceWrites() {
        assertFalse(client.exactlyOnceWrites());
    }

    @Test
    void serverRestartSuspendsThenReconnectsTheSameSession() {
        long session = client.sessionId();
        client.create("/eph", new byte[0], CreateMode.EPHEMERAL);
        Recorder<ConnectionState> states = Recorder.states();
        Recorder<WatchedEvent> events = Recorder.events();
        client.addConnectionStateListener(states.listener());
        client.getData("/eph", events.watcher());

        server.stop();
        states.expect(SUSPENDED);
        ZkException lost = assertThrows(ZkException.class, () -> client.getData("/eph"));
        assertInstanceOf(ZkException.ConnectionLoss.class, lost, lost.toString());
        server.restart();
        states.expect(RECONNECTED);
        assertEquals(RECONNECTED, client.state());
        assertEquals(session, client.sessionId());
        assertNotNull(client.exists("/eph"), "the session kept its ephemeral");
        assertEquals(Set.of("/eph"), client.watchedPaths());

        // the watch was re-registered and the connection events did not reach it
        try (ApacheZkClient other = ApacheZkClient.connect(server.connectString(), Duration.ofSeconds(10))) {
            other.setData("/eph", new byte[] {1}, -1);
        }
        assertEquals(WatchedEvent.Type.NODE_DATA_CHANGED, events.next().type());
        events.expectNoneAfterRoundTrip(client);
        assertEquals(List.of(SUSPENDED, RECONNECTED), states.all());
    }

    @Test
    void expiryIsLostThenANewSessionIsConnected() {
        long session = client.sessionId();
        client.create("/eph", new byte[0], CreateMode.EPHEMERAL);
        client.create("/persistent", new byte[0], CreateMode.PERSISTENT);
        Recorder<ConnectionState> states = Recorder.states();
        Recorder<WatchedEvent> events = Recorder.events();
        client.addConnectionStateListener(states.listener());
        client.getData("/persistent", events.watcher());

        server.expireSession(session);
        ConnectionState first = states.next();
        if (first == SUSPENDED) {
            first = states.next();
        }
        assertEquals(LOST, first);
        states.expect(CONNECTED);
        assertNotEquals(session, client.sessionId());
        assertEquals(CONNECTED, client.state());
        assertNull(client.exists("/eph"), "ephemerals of the expired session are gone");
        assertEquals(Set.of(), client.watchedPaths(), "watches of the expired session are dropped");
        client.create("/eph", new byte[0], CreateMode.EPHEMERAL);
        assertEquals(client.sessionId(), client.exists("/eph").ephemeralOwner());
        events.expectNoneAfterRoundTrip(client);
    }

    @Test
    void withoutRenewalAnExpiredClientStaysLost() {
        try (ApacheZkClient once = ApacheZkClient.builder().connectString(server.connectString())
                .renewSessionOnExpiry(false).build()) {
            Recorder<ConnectionState> states = Recorder.states();
            once.addConnectionStateListener(states.listener());
            server.expireSession(once.sessionId());
            ConnectionState state = states.next();
            if (state == SUSPENDED) {
                state = states.next();
            }
            assertEquals(LOST, state);
            assertThrows(ZkException.SessionExpired.class, () -> once.exists("/"));
            assertEquals(LOST, once.state());
            once.close();
            assertEquals(List.of(LOST), states.all().stream().filter(s -> s != SUSPENDED).toList(),
                    "close() after LOST reports nothing more");
        }
    }

    @Test
    void closeReportsLostOnceAndFailsEveryLaterCall() throws Exception {
        Recorder<ConnectionState> states = Recorder.states();
        Recorder<ConnectionState> viaExecutor = Recorder.states();
        ExecutorService executor = Executors.newSingleThreadExecutor();
        client.addConnectionStateListener(states.listener());
        client.addConnectionStateListener(viaExecutor.listener(), executor);
        client.create("/eph", new byte[0], CreateMode.EPHEMERAL);
        client.exists("/eph", e -> { });
        try (ApacheZkClient other = ApacheZkClient.connect(server.connectString(), Duration.ofSeconds(10))) {
            assertFalse(client.isClosed());
            client.close();
            client.close();
            assertTrue(client.isClosed());
            assertEquals(List.of(LOST), states.all());
            viaExecutor.expect(LOST);
            executor.shutdown();
            assertTrue(executor.awaitTermination(10, TimeUnit.SECONDS));
            assertEquals(List.of(LOST), viaExecutor.all());
            assertEquals(LOST, client.state());
            assertNull(other.exists("/eph"), "close ended the session");
        }
        assertThrows(ZkException.Closed.class, () -> client.exists("/"));
        assertThrows(ZkException.Closed.class, () -> client.create("/x", new byte[0], CreateMode.PERSISTENT));
        CompletableFuture<?> f = client.getDataAsync("/", null);
        assertTrue(f.isCompletedExceptionally());
        assertInstanceOf(ZkException.Closed.class, assertThrows(Exception.class, f::join).getCause());
        assertThrows(ZkException.Closed.class, () -> client.removeWatches("/eph", e -> { }, WatcherType.ANY, true));
        assertEquals(Set.of(), client.watchedPaths());
    }

    @Test
    void requestsInFlightAtCloseFailWithClosed() {
        client.create("/n", new byte[0], CreateMode.PERSISTENT);
        server.stop();
        // queued while the client has no connection: close() must complete it
        CompletableFuture<?> pending = client.getDataAsync("/n", null);
        client.close();
        Throwable t = assertThrows(Exception.class, pending::join).getCause();
        assertTrue(t instanceof ZkException.Closed || t instanceof ZkException.ConnectionLoss, t.toString());
    }

    @Test
    void removeWatchesLocallyWorksWithoutTheServer() {
        client.create("/n", new byte[0], CreateMode.PERSISTENT);
        Recorder<WatchedEvent> events = Recorder.events();
        client.getData("/n", events.watcher());
        Recorder<ConnectionState> states = Recorder.states();
        client.addConnectionStateListener(states.listener());
        server.stop();
        states.expect(SUSPENDED);
        client.removeWatches("/n", events.watcher(), WatcherType.DATA, true);
        assertEquals(WatchedEvent.Type.DATA_WATCH_REMOVED, events.next().type());
        assertEquals(Set.of(), client.watchedPaths());
        server.restart();
        states.expect(RECONNECTED);
    }
}
