package dev.zkr.contract;

import dev.zkr.client.AddWatchMode;
import dev.zkr.client.CreateMode;
import dev.zkr.client.Op;
import dev.zkr.client.OpResult;
import dev.zkr.client.Parents;
import dev.zkr.client.WatchedEvent.Type;
import dev.zkr.client.WatcherType;
import dev.zkr.client.ZkClient;
import dev.zkr.client.ZkException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;

import static dev.zkr.contract.NodeContractTest.bytes;
import static dev.zkr.contract.NodeContractTest.failure;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A chroot in the connect string ({@code host:port/app}), as ZooKeeper's client has it: the caller's paths are
 * relative to {@code /app} on the server, and every path coming back (created paths, multi results, watch events,
 * error paths, watched paths) is relative to it again. Checked from both sides: a plain client sees where the
 * chrooted client's nodes really are.
 */
class ChrootContractTest {

    @TempDir
    static Path dir;
    static TestServer server;
    static ZkClient plain;
    static ZkClient app;

    @BeforeAll
    static void start() {
        server = TestServer.start(dir);
        plain = server.client();
        plain.create("/app", bytes("root of app"), CreateMode.PERSISTENT);
        app = server.client(server.builder().connectString(server.connectString() + "/app"));
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    @Test
    void pathsGoUnderTheChrootAndComeBackWithoutIt() {
        assertEquals("/x", app.create("/x", bytes("x"), CreateMode.PERSISTENT));
        assertArrayEquals(bytes("x"), plain.getData("/app/x").data());
        assertArrayEquals(bytes("root of app"), app.getData("/").data(), "/ is the chroot itself");
        assertTrue(app.getChildren("/").contains("x"));
        String seq = app.create("/x/s-", new byte[0], CreateMode.PERSISTENT_SEQUENTIAL);
        assertTrue(seq.matches("/x/s-\\d{10}"), seq);
        assertNotNull(plain.exists("/app" + seq));
        assertEquals("/p/q/r", app.create("/p/q/r", new byte[0], CreateMode.PERSISTENT, Parents.PERSISTENT));
        assertNotNull(plain.exists("/app/p/q"));
        app.setData("/x", bytes("y"), -1);
        assertArrayEquals(bytes("y"), plain.getData("/app/x").data());
        app.sync("/x");
        assertNotNull(app.getAcl("/x"));
        app.delete("/x" + seq.substring(2), -1);
        assertNull(plain.exists("/app" + seq));
    }

    @Test
    void multiResultsAndFailuresNameTheCallersPaths() {
        List<OpResult> results = app.multi(List.of(Op.create("/m", new byte[0], CreateMode.PERSISTENT),
                Op.create("/m/s-", new byte[0], CreateMode.PERSISTENT_SEQUENTIAL), Op.check("/m", 0)));
        assertEquals("/m", ((OpResult.CreateResult) results.get(0)).path());
        assertTrue(((OpResult.CreateResult) results.get(1)).path().startsWith("/m/s-"), results.toString());
        assertNotNull(plain.exists("/app/m"));

        ZkException e = failure(app.getDataAsync("/missing", null));
        assertInstanceOf(ZkException.NoNode.class, e);
        assertEquals("/missing", e.path());
        ZkException m = failure(app.multiAsync(List.of(Op.create("/m2", new byte[0], CreateMode.PERSISTENT),
                Op.delete("/nothing", -1))));
        assertEquals("/nothing", m.path());
        assertEquals(2, m.multiResults().size());
        assertNull(plain.exists("/app/m2"), "the multi failed as a whole");
        // an invalid path fails as on a client without a chroot, naming the caller's path
        ZkException invalid = assertThrows(ZkException.class, () -> app.getData("x"));
        assertEquals("x", invalid.path());
    }

    @Test
    void theZooKeeper36ReadsTakeAndGiveTheCallersPaths() {
        app.create("/r", bytes("r"), CreateMode.PERSISTENT);
        app.create("/r/e", new byte[0], CreateMode.EPHEMERAL);
        app.create("/r/c", new byte[0], CreateMode.PERSISTENT);
        assertEquals(List.of("/r/e"), app.getEphemerals("/r"));
        assertTrue(plain.getEphemerals("/").isEmpty(), "the plain client's session owns none");
        assertEquals(2, app.getAllChildrenNumber("/r"));
        List<OpResult> reads = app.multiRead(List.of(Op.getData("/r"), Op.getChildren("/r"), Op.getData("/none")));
        assertArrayEquals(bytes("r"), ((OpResult.GetDataResult) reads.get(0)).data());
        assertEquals(Set.of("e", "c"), Set.copyOf(((OpResult.GetChildrenResult) reads.get(1)).children()));
        assertEquals(ZkException.Code.NO_NODE, ((OpResult.ErrorResult) reads.get(2)).code());
    }

    @Test
    void watchEventsAndWatchedPathsAreRelativeToTheChroot() {
        app.create("/w", new byte[0], CreateMode.PERSISTENT);
        RecordingWatcher data = new RecordingWatcher();
        app.getData("/w", data);
        assertTrue(app.watchedPaths().contains("/w"), app.watchedPaths().toString());
        plain.setData("/app/w", bytes("1"), -1);
        data.expect(Type.NODE_DATA_CHANGED, "/w");

        RecordingWatcher recursive = new RecordingWatcher();
        app.addWatch("/w", AddWatchMode.PERSISTENT_RECURSIVE, recursive);
        plain.create("/app/w/child", new byte[0], CreateMode.PERSISTENT);
        recursive.expect(Type.NODE_CREATED, "/w/child");
        app.removeWatches("/w", recursive, WatcherType.ANY, false);
        recursive.expect(Type.PERSISTENT_WATCH_REMOVED, "/w");
        assertEquals(Set.of(), Set.copyOf(app.watchedPaths()));

        RecordingWatcher root = new RecordingWatcher();
        app.getChildren("/", root);
        plain.create("/app/new-child", new byte[0], CreateMode.PERSISTENT);
        root.expect(Type.NODE_CHILDREN_CHANGED, "/");
    }

    @Test
    void aMissingChrootNodeFailsOperationsAndABadOneFailsTheBuild() {
        ZkClient nowhere = server.client(server.builder().connectString(server.connectString() + "/absent"));
        ZkException e = failure(nowhere.createAsync("/x", new byte[0], CreateMode.PERSISTENT));
        assertInstanceOf(ZkException.NoNode.class, e);
        assertEquals("/x", e.path());
        assertThrows(IllegalArgumentException.class,
                () -> server.builder().connectString(server.connectString() + "/bad/").build());
        ZkClient slashOnly = server.client(server.builder().connectString(server.connectString() + "/"));
        assertNotNull(slashOnly.exists("/app"), "a chroot of / is no chroot");
        plain.create("/app/d/q/r", new byte[0], CreateMode.PERSISTENT, Parents.PERSISTENT);
        ZkClient deep = server.client(server.builder().connectString(server.connectString() + "/app/d")
                .sessionTimeout(Duration.ofSeconds(4)));
        assertNotNull(deep.exists("/q/r"));
    }
}
