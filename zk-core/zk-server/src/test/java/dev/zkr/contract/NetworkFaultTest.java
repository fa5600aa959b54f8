package dev.zkr.contract;

import dev.zkr.client.ConnectionState;
import dev.zkr.client.CreateMode;
import dev.zkr.client.Stat;
import dev.zkr.client.WatchedEvent;
import dev.zkr.client.WatchedEvent.Type;
import dev.zkr.client.ZkClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;

import static dev.zkr.contract.NodeContractTest.bytes;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** Connection faults between a live client and a live server, through a TCP proxy. */
class NetworkFaultTest {

    @TempDir
    Path dir;
    TestServer server;
    TcpProxy proxy;

    @BeforeEach
    void start() throws IOException {
        server = TestServer.start(dir);
        proxy = new TcpProxy(server.port());
    }

    @AfterEach
    void stop() throws IOException {
        server.close();
        proxy.close();
    }

    private ZkClient proxied(Duration sessionTimeout) {
        return server.client(server.builder().connectString(proxy.connectString()).sessionTimeout(sessionTimeout));
    }

    @Test
    void eventsMissedWhileDisconnectedFireOnReconnect() {
        ZkClient c = proxied(Duration.ofSeconds(4));
        ZkClient direct = server.client();
        StateRecorder states = new StateRecorder();
        c.addConnectionStateListener(states);
        c.create("/m", bytes("0"), CreateMode.PERSISTENT);
        RecordingWatcher data = new RecordingWatcher();
        c.getData("/m", data);
        RecordingWatcher missing = new RecordingWatcher();
        c.exists("/born", missing);
        RecordingWatcher kids = new RecordingWatcher();
        c.getChildren("/m", kids);

        proxy.refuse(true);
        proxy.cut();
        states.expect(ConnectionState.SUSPENDED);
        Stat changed = direct.setData("/m", bytes("1"), -1);
        direct.create("/born", null, CreateMode.PERSISTENT);
        direct.create("/m/kid", null, CreateMode.PERSISTENT);
        proxy.refuse(false);
        states.expect(ConnectionState.RECONNECTED);
        WatchedEvent e = data.expect(Type.NODE_DATA_CHANGED, "/m");
        assertEquals(changed.mzxid(), e.zxid(), "the event carries the zxid of the change it reports");
        missing.expect(Type.NODE_CREATED, "/born");
        kids.expect(Type.NODE_CHILDREN_CHANGED, "/m");
        c.sync("/");
        assertEquals(0, data.pending() + missing.pending() + kids.pending());
    }

    @Test
    void aSilentConnectionIsDetectedAndTheSessionReattached() {
        // the client gives up on the silent connection after 2/3 of the timeout and has the last third to
        // re-attach: 3 s leaves a second for that on a loaded machine
        ZkClient c = proxied(Duration.ofMillis(3000));
        StateRecorder states = new StateRecorder();
        c.addConnectionStateListener(states);
        c.create("/alive", null, CreateMode.EPHEMERAL);
        long session = c.sessionId();
        proxy.blackHole();
        states.expect(ConnectionState.SUSPENDED);
        states.expect(ConnectionState.RECONNECTED);
        assertEquals(session, c.sessionId());
        assertEquals(session, c.exists("/alive").ephemeralOwner());
    }

    @Test
    void aSessionThatStaysAwayTooLongIsLost() {
        // long enough that a scheduling stall during the setup does not already cost the connection
        ZkClient c = proxied(Duration.ofMillis(2000));
        ZkClient direct = server.client();
        StateRecorder states = new StateRecorder();
        c.addConnectionStateListener(states);
        c.create("/gone", null, CreateMode.EPHEMERAL);
        RecordingWatcher w = new RecordingWatcher();
        direct.exists("/gone", w);
        long session = c.sessionId();
        proxy.refuse(true);
        proxy.cut();
        states.expect(ConnectionState.SUSPENDED);
        w.expect(Type.NODE_DELETED, "/gone"); // the server expired the session
        proxy.refuse(false);
        states.expect(ConnectionState.LOST);
        states.expect(ConnectionState.CONNECTED);
        org.junit.jupiter.api.Assertions.assertNotEquals(session, c.sessionId());
    }
}
