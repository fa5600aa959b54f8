package dev.zkr.contract;

import dev.zkr.client.ConnectionState;
import dev.zkr.client.CreateMode;
import dev.zkr.client.ZkClient;
import dev.zkr.server.StderrCapture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Ordinary endings log no warning on the client: closing a client, closing one whose session expired, and a
 * server shutting down under connected clients. (A warning here once meant the server sent an empty frame on
 * close, which the client could not decode.) The test binding, slf4j-simple, writes to the current System.err.
 */
class QuietCloseTest {

    @TempDir
    Path dir;
    TestServer server;
    private StderrCapture captured;

    @BeforeEach
    void start() {
        server = TestServer.start(dir);
        captured = new StderrCapture();
    }

    @AfterEach
    void stop() {
        captured.close();
        server.close();
    }

    private List<String> clientWarnings() {
        return captured.text().lines().filter(l -> l.contains("WARN") && l.contains("dev.zkr.client")).toList();
    }

    @Test
    void closingClientsLogsNoWarning() {
        for (int i = 0; i < 10; i++) {
            ZkClient c = server.builder().build();
            c.create("/e" + i, null, CreateMode.EPHEMERAL);
            c.getData("/e" + i, e -> { });
            c.close();
        }
        assertEquals(List.of(), clientWarnings());
    }

    @Test
    void closingAClientWhoseSessionExpiredLogsNoWarning() {
        ZkClient c = server.client(server.builder().renewSessionOnExpiry(false));
        StateRecorder states = new StateRecorder();
        c.addConnectionStateListener(states);
        c.create("/e", null, CreateMode.EPHEMERAL);
        assertTrue(server.expire(c.sessionId()));
        states.expect(ConnectionState.SUSPENDED);
        states.expect(ConnectionState.LOST);
        c.close();
        assertEquals(List.of(), clientWarnings());
    }

    @Test
    void closingRightAfterAnExpiryLogsNoWarning() {
        for (int i = 0; i < 10; i++) {
            ZkClient c = server.builder().renewSessionOnExpiry(false).build();
            c.create("/e" + i, null, CreateMode.EPHEMERAL);
            assertTrue(server.expire(c.sessionId()));
            c.close(); // races the server closing the expired session's connection
        }
        assertEquals(List.of(), clientWarnings());
    }

    @Test
    void serverShutdownLogsNoClientWarning() {
        ZkClient a = server.client();
        ZkClient b = server.client();
        StateRecorder states = new StateRecorder();
        a.addConnectionStateListener(states);
        a.create("/x", null, CreateMode.PERSISTENT);
        b.getData("/x", e -> { });
        server.server().close();
        states.expect(ConnectionState.SUSPENDED);
        a.close();
        b.close();
        assertEquals(List.of(), clientWarnings());
    }
}
