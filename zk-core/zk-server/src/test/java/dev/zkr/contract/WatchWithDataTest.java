package dev.zkr.contract;

import dev.zkr.client.Acls;
import dev.zkr.client.AddWatchMode;
import dev.zkr.client.ConnectionState;
import dev.zkr.client.CreateMode;
import dev.zkr.client.NodeData;
import dev.zkr.client.Op;
import dev.zkr.client.Stat;
import dev.zkr.client.WatchedEvent;
import dev.zkr.client.WatchedEvent.Type;
import dev.zkr.client.WatcherType;
import dev.zkr.client.ZkClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static dev.zkr.contract.NodeContractTest.bytes;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * Persistent watches set with data (zkr's own protocol, {@code addWatchAsync(path, mode, true, watcher)}): their
 * created and data-changed events carry the node's data and Stat right after the change, exactly what a
 * {@code getData} would have read then; other events, other sessions' watches and watches without data carry none;
 * the mark survives a reconnect and goes with the watch's removal.
 */
class WatchWithDataTest {

    @TempDir
    Path dir;
    TestServer server;
    ZkClient client;
    ZkClient other;

    @BeforeEach
    void start() {
        server = TestServer.start(dir);
        client = server.client();
        other = server.client();
    }

    @AfterEach
    void stop() {
        server.close();
    }

    private static NodeData dataOf(WatchedEvent e) {
        assertNotNull(e.data(), "event without data: " + e);
        return e.data();
    }

    @Test
    void recursiveEventsCarryTheNodeAsOfTheirChange() {
        client.create("/r", null, CreateMode.PERSISTENT);
        RecordingWatcher w = new RecordingWatcher();
        client.addWatchAsync("/r", AddWatchMode.PERSISTENT_RECURSIVE, true, w).join();

        other.create("/r/a", bytes("one"), CreateMode.PERSISTENT);
        Stat created = other.exists("/r/a");
        WatchedEvent e = w.expect(Type.NODE_CREATED, "/r/a");
        assertArrayEquals(bytes("one"), dataOf(e).data());
        assertEquals(created, dataOf(e).stat());
        assertEquals(created.czxid(), e.zxid());

        Stat changed = other.setData("/r/a", bytes("two"), -1);
        other.setData("/r/a", bytes("three"), -1); // the first event still carries "two": the node as of its txn
        e = w.expect(Type.NODE_DATA_CHANGED, "/r/a");
        assertArrayEquals(bytes("two"), dataOf(e).data());
        assertEquals(changed, dataOf(e).stat());
        e = w.expect(Type.NODE_DATA_CHANGED, "/r/a");
        assertArrayEquals(bytes("three"), dataOf(e).data());
        assertEquals(other.getData("/r/a").stat(), dataOf(e).stat());

        other.create("/r/a/b", null, CreateMode.EPHEMERAL);
        e = w.expect(Type.NODE_CREATED, "/r/a/b");
        assertEquals(0, dataOf(e).data().length, "no data: an empty array, as getData answers");
        assertEquals(other.sessionId(), dataOf(e).stat().ephemeralOwner());

        other.delete("/r/a/b", -1);
        assertNull(w.expect(Type.NODE_DELETED, "/r/a/b").data(), "a deletion carries nothing");
    }

    @Test
    void aPersistentWatchCarriesDataOnlyForItsNodesChangesNotItsChildren() {
        client.create("/p", bytes("0"), CreateMode.PERSISTENT);
        RecordingWatcher w = new RecordingWatcher();
        client.addWatchAsync("/p", AddWatchMode.PERSISTENT, true, w).join();
        Stat changed = other.setData("/p", bytes("1"), -1);
        assertEquals(changed, dataOf(w.expect(Type.NODE_DATA_CHANGED, "/p")).stat());
        other.create("/p/k", null, CreateMode.PERSISTENT);
        assertNull(w.expect(Type.NODE_CHILDREN_CHANGED, "/p").data());
        other.delete("/p/k", -1);
        assertNull(w.expect(Type.NODE_CHILDREN_CHANGED, "/p").data());
        other.delete("/p", -1);
        assertNull(w.expect(Type.NODE_DELETED, "/p").data());
        other.create("/p", bytes("again"), CreateMode.PERSISTENT);
        assertArrayEquals(bytes("again"), dataOf(w.expect(Type.NODE_CREATED, "/p")).data());
    }

    @Test
    void aMultiSendsTheNodeAsItLeftTheMulti() {
        client.create("/m", null, CreateMode.PERSISTENT);
        RecordingWatcher w = new RecordingWatcher();
        client.addWatchAsync("/m", AddWatchMode.PERSISTENT_RECURSIVE, true, w).join();
        other.multi(List.of(Op.create("/m/x", bytes("first"), CreateMode.PERSISTENT),
                Op.setData("/m/x", bytes("second"), -1)));
        NodeData after = other.getData("/m/x");
        for (Type type : List.of(Type.NODE_CREATED, Type.NODE_DATA_CHANGED)) {
            WatchedEvent e = w.expect(type, "/m/x");
            assertArrayEquals(bytes("second"), dataOf(e).data());
            assertEquals(after.stat(), dataOf(e).stat());
        }
        other.multi(List.of(Op.create("/m/gone", bytes("brief"), CreateMode.PERSISTENT),
                Op.delete("/m/gone", -1)));
        assertNull(w.expect(Type.NODE_CREATED, "/m/gone").data(), "deleted in the same multi: nothing to send");
        w.expect(Type.NODE_DELETED, "/m/gone");
    }

    @Test
    void onlyTheSessionsThatAskedGetData() {
        client.create("/s", null, CreateMode.PERSISTENT);
        RecordingWatcher with = new RecordingWatcher();
        client.addWatchAsync("/s", AddWatchMode.PERSISTENT_RECURSIVE, true, with).join();
        RecordingWatcher without = new RecordingWatcher();
        other.addWatch("/s", AddWatchMode.PERSISTENT_RECURSIVE, without);
        other.create("/s/n", bytes("v"), CreateMode.PERSISTENT);
        assertArrayEquals(bytes("v"), dataOf(with.expect(Type.NODE_CREATED, "/s/n")).data());
        assertNull(without.expect(Type.NODE_CREATED, "/s/n").data());
    }

    @Test
    void removingTheWatchDropsTheMark() {
        client.create("/x", null, CreateMode.PERSISTENT);
        RecordingWatcher w = new RecordingWatcher();
        client.addWatchAsync("/x", AddWatchMode.PERSISTENT_RECURSIVE, true, w).join();
        client.removeWatches("/x", w, WatcherType.PERSISTENT_RECURSIVE, false);
        w.expect(Type.PERSISTENT_WATCH_REMOVED, "/x");
        client.addWatch("/x", AddWatchMode.PERSISTENT_RECURSIVE, w);
        other.create("/x/n", bytes("v"), CreateMode.PERSISTENT);
        assertNull(w.expect(Type.NODE_CREATED, "/x/n").data(), "the watch set again without data");
        // a later add without data keeps a mark that is there
        client.addWatchAsync("/x", AddWatchMode.PERSISTENT_RECURSIVE, true, w).join();
        client.addWatch("/x", AddWatchMode.PERSISTENT_RECURSIVE, w);
        other.setData("/x/n", bytes("w"), -1);
        assertArrayEquals(bytes("w"), dataOf(w.expect(Type.NODE_DATA_CHANGED, "/x/n")).data());
    }

    @Test
    void aNodeTheSessionMayNotReadSendsNoEventWithOrWithoutData() {
        client.create("/acl", null, CreateMode.PERSISTENT);
        RecordingWatcher w = new RecordingWatcher();
        client.addWatchAsync("/acl", AddWatchMode.PERSISTENT_RECURSIVE, true, w).join();
        other.addAuthInfo("digest", bytes("bob:secret"));
        other.create("/acl/secret", bytes("hidden"), CreateMode.PERSISTENT,
                Acls.CREATOR_ALL);
        other.create("/acl/open", bytes("shown"), CreateMode.PERSISTENT);
        WatchedEvent e = w.next();
        assertEquals("/acl/open", e.path(), "the first event is the readable node's: " + e);
        assertArrayEquals(bytes("shown"), dataOf(e).data());
    }

    @Test
    void theMarkSurvivesAReconnect() throws IOException {
        TcpProxy proxy = new TcpProxy(server.port());
        try {
            ZkClient c = server.client(server.builder().connectString(proxy.connectString())
                    .sessionTimeout(Duration.ofSeconds(4)));
            StateRecorder states = new StateRecorder();
            c.addConnectionStateListener(states);
            c.create("/re", null, CreateMode.PERSISTENT);
            RecordingWatcher w = new RecordingWatcher();
            c.addWatchAsync("/re", AddWatchMode.PERSISTENT_RECURSIVE, true, w).join();
            proxy.refuse(true);
            proxy.cut();
            states.expect(ConnectionState.SUSPENDED);
            proxy.refuse(false);
            states.expect(ConnectionState.RECONNECTED);
            other.create("/re/n", bytes("after"), CreateMode.PERSISTENT);
            assertArrayEquals(bytes("after"), dataOf(w.expect(Type.NODE_CREATED, "/re/n")).data());
        } finally {
            proxy.close();
        }
    }

    @Test
    void aChrootedClientGetsTheDataWithItsOwnPaths() {
        other.create("/app", null, CreateMode.PERSISTENT);
        ZkClient chrooted = server.client(server.builder().connectString(server.connectString() + "/app"));
        RecordingWatcher w = new RecordingWatcher();
        chrooted.addWatchAsync("/", AddWatchMode.PERSISTENT_RECURSIVE, true, w).join();
        other.create("/app/n", bytes("v"), CreateMode.PERSISTENT);
        assertArrayEquals(bytes("v"), dataOf(w.expect(Type.NODE_CREATED, "/n")).data());
    }
}
