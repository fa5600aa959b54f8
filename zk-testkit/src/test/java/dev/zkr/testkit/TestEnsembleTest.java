package dev.zkr.testkit;

import dev.zkr.client.ConnectionState;
import dev.zkr.client.CreateMode;
import dev.zkr.client.WatchedEvent;
import dev.zkr.client.ZkClient;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TestEnsembleTest {

    static void await(String what, BooleanSupplier condition) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting for " + what);
            }
            try {
                Thread.sleep(5);
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
        }
    }

    @Test
    void onlyOneThreeOrFiveServers() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> TestEnsemble.builder().servers(2));
        assertTrue(e.getMessage().contains("1, 3 or 5"), e.getMessage());
    }

    @Test
    void restartKeepsDataAndPort() {
        try (TestEnsemble ensemble = TestEnsemble.builder().start()) {
            String connect = ensemble.connectString();
            ZkClient client = ensemble.newClient();
            client.create("/kept", new byte[]{7}, CreateMode.PERSISTENT);
            ensemble.restart(0);
            assertEquals(connect, ensemble.connectString());
            try (ZkClient again = ZkClient.connect(connect, Duration.ofSeconds(5))) {
                assertArrayEquals(new byte[]{7}, again.getData("/kept").data());
            }
        }
    }

    @Test
    void expireSessionMakesTheClientLoseItAndDeletesItsEphemerals() {
        try (TestEnsemble ensemble = TestEnsemble.builder().start()) {
            ZkClient owner = ensemble.newClient();
            ZkClient observer = ensemble.newClient();
            BlockingQueue<ConnectionState> states = new LinkedBlockingQueue<>();
            owner.addConnectionStateListener((c, s) -> states.add(s));
            owner.create("/eph", new byte[0], CreateMode.EPHEMERAL);
            BlockingQueue<WatchedEvent> events = new LinkedBlockingQueue<>();
            assertNotNull(observer.exists("/eph", events::add));
            long old = owner.sessionId();

            ensemble.expireSession(old);

            assertEquals(WatchedEvent.Type.NODE_DELETED, poll(events).type());
            assertNull(observer.exists("/eph"));
            ConnectionState s;
            do {
                s = poll(states);
            } while (s != ConnectionState.LOST);
            assertThrows(IllegalArgumentException.class, () -> ensemble.expireSession(old));
        }
    }

    @Test
    void killSuspendsClientsAndRestartReconnectsThemWithTheirSession() {
        try (TestEnsemble ensemble = TestEnsemble.builder().start()) {
            ZkClient client = ensemble.newClient(Duration.ofSeconds(10));
            List<ConnectionState> states = new CopyOnWriteArrayList<>();
            client.addConnectionStateListener((c, s) -> states.add(s));
            client.create("/mine", new byte[0], CreateMode.EPHEMERAL);
            long session = client.sessionId();

            ensemble.kill(0);
            assertFalse(ensemble.isRunning(0));
            await("SUSPENDED", () -> states.contains(ConnectionState.SUSPENDED));
            ensemble.restart(0);
            await("RECONNECTED", () -> states.contains(ConnectionState.RECONNECTED));

            assertEquals(session, client.sessionId());
            assertEquals(session, client.exists("/mine").ephemeralOwner());
            assertFalse(states.contains(ConnectionState.LOST));
        }
    }

    @Test
    void closeDeletesTheTemporaryDirectories() {
        Path dir;
        try (TestEnsemble ensemble = TestEnsemble.builder().start()) {
            dir = ensemble.dataDir(0);
            assertTrue(Files.isDirectory(dir));
        }
        assertFalse(Files.exists(dir));
    }

    private static <T> T poll(BlockingQueue<T> q) {
        try {
            T t = q.poll(20, TimeUnit.SECONDS);
            assertNotNull(t, "nothing arrived");
            return t;
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }
}
