package dev.zkr.contract;

import dev.zkr.client.CreateMode;
import dev.zkr.client.Op;
import dev.zkr.client.Stat;
import dev.zkr.client.WatchedEvent.Type;
import dev.zkr.client.WatcherType;
import dev.zkr.client.ZkClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static dev.zkr.contract.NodeContractTest.bytes;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * When watches are registered and dropped, on the client and on the server, around replies and events that cross:
 * a one-shot watch set by a read fires on the first change after that read and is then gone on both sides; a
 * watch is never left registered on one side only. The client goes through a proxy that can hold the server's
 * messages, so that a request is certainly sent before the reply of an earlier one arrives.
 */
class WatchRegistrationTest {

    @TempDir
    Path dir;
    TestServer server;
    TcpProxy proxy;
    ZkClient client;
    ZkClient other;

    @BeforeEach
    void start() throws IOException {
        server = TestServer.start(dir);
        proxy = new TcpProxy(server.port());
        client = server.client(server.builder().connectString(proxy.connectString()));
        other = server.client();
    }

    @AfterEach
    void stop() throws IOException {
        proxy.close();
        server.close();
    }

    /**
     * Removing the last registered watcher of a path while a watching read of the same path is in flight: the
     * server serves the read first, so it must keep the watch the read's watcher is registered with (ZooKeeper's
     * removal of one watcher checks, and never drops, the server's watch).
     */
    @Test
    void removingAWatcherKeepsTheServerWatchOfAWatchingReadInFlight() throws Exception {
        RecordingWatcher removed = new RecordingWatcher();
        RecordingWatcher later = new RecordingWatcher();
        assertNull(client.exists("/rm", removed));
        proxy.hold(true);
        CompletableFuture<Stat> read = client.existsAsync("/rm", later);
        CompletableFuture<Void> removal = client.removeWatchesAsync("/rm", removed, WatcherType.DATA, false);
        removed.expect(Type.DATA_WATCH_REMOVED, "/rm"); // local at once; the read's reply is still held
        proxy.hold(false);
        assertNull(read.get(5, TimeUnit.SECONDS));
        removal.get(5, TimeUnit.SECONDS);
        assertEquals(Set.of("/rm"), client.watchedPaths());

        other.create("/rm", null, CreateMode.PERSISTENT);
        later.expect(Type.NODE_CREATED, "/rm");
        assertEquals(Set.of(), client.watchedPaths());
        assertEquals(0, removed.pending(), "removed watcher fired: " + removed.all());
    }

    /** The same for a child watch and for a getData watch set while the removal of another one is in flight. */
    @Test
    void removingWatchersOfEveryGroupKeepsWhatReadsInFlightSet() throws Exception {
        other.create("/g", null, CreateMode.PERSISTENT);
        RecordingWatcher first = new RecordingWatcher();
        RecordingWatcher data = new RecordingWatcher();
        RecordingWatcher children = new RecordingWatcher();
        client.getData("/g", first);
        client.getChildren("/g", first);
        proxy.hold(true);
        CompletableFuture<?> reads = CompletableFuture.allOf(client.getDataAsync("/g", data),
                client.getChildrenAsync("/g", children));
        CompletableFuture<Void> removal = client.removeWatchesAsync("/g", first, WatcherType.ANY, false);
        proxy.hold(false);
        reads.get(5, TimeUnit.SECONDS);
        removal.get(5, TimeUnit.SECONDS);

        other.create("/g/c", null, CreateMode.PERSISTENT);
        children.expect(Type.NODE_CHILDREN_CHANGED, "/g");
        other.setData("/g", bytes("x"), -1);
        data.expect(Type.NODE_DATA_CHANGED, "/g");
        assertEquals(Set.of(), client.watchedPaths());
    }

    /**
     * With nothing in flight the removal still drops the server's watch: a later change sends the client no event
     * (seen through a persistent watch of the same client, whose events follow any the removed watch would cause).
     */
    @Test
    void removingTheLastWatcherWithNothingInFlightDropsTheServerWatch() {
        RecordingWatcher w = new RecordingWatcher();
        assertNull(client.exists("/gone", w));
        client.removeWatches("/gone", w, WatcherType.DATA, false);
        w.expect(Type.DATA_WATCH_REMOVED, "/gone");
        other.create("/gone", null, CreateMode.PERSISTENT);
        assertNotNull(client.exists("/gone")); // answered after any event of the create
        assertEquals(0, w.pending(), "removed watcher fired: " + w.all());
        assertEquals(Set.of(), client.watchedPaths());
    }

    /**
     * The same watcher passed to exists twice, the node created between the two reads: the first read's watch
     * fires (NODE_CREATED, once), and the second read — which saw the node — sets a data watch of its own, which
     * the client keeps after the event, as ZooKeeper's does; it fires on the next change and is then gone.
     */
    @Test
    void aSecondWatchingReadAfterTheEventSetsAWatchOfItsOwn() {
        RecordingWatcher w = new RecordingWatcher();
        assertNull(client.exists("/ready", w));
        other.create("/ready", null, CreateMode.PERSISTENT);
        assertNotNull(client.exists("/ready", w)); // its reply follows the creation's event
        w.expect(Type.NODE_CREATED, "/ready");
        assertEquals(0, w.pending());
        assertEquals(Set.of("/ready"), client.watchedPaths(), "the second read's watch");
        other.setData("/ready", bytes("1"), -1);
        w.expect(Type.NODE_DATA_CHANGED, "/ready");
        client.exists("/ready");
        assertEquals(0, w.pending(), "fired twice: " + w.all());
        assertEquals(Set.of(), client.watchedPaths());
    }

    /**
     * The double barrier's pipelined enter against a concurrent multi that creates {@code ready}: whichever is
     * served first, the exists watch fires if and only if the exists saw no node, and only an exists that saw the
     * node leaves a (data) watch registered.
     */
    @Test
    void aPipelinedExistsRacingAMultiCreateFiresIffItSawNoNode() throws Exception {
        other.create("/b", null, CreateMode.PERSISTENT);
        other.create("/b/other", null, CreateMode.EPHEMERAL);
        for (int i = 0; i < 30; i++) {
            RecordingWatcher w = new RecordingWatcher();
            CompletableFuture<?> parent = client.createAsync("/b", null, CreateMode.CONTAINER)
                    .handle((v, e) -> null); // NodeExists
            CompletableFuture<?> mine = client.createAsync("/b/me", null, CreateMode.EPHEMERAL);
            CompletableFuture<Stat> ready = client.existsAsync("/b/ready", w);
            CompletableFuture<?> listing = client.getChildrenAsync("/b", null);
            other.multi(List.of(Op.create("/b/ready", null, CreateMode.PERSISTENT),
                    Op.setData("/b/other", bytes(Integer.toString(i)), -1)));
            CompletableFuture.allOf(parent, mine, listing).get(5, TimeUnit.SECONDS);
            Stat seen = ready.get(5, TimeUnit.SECONDS);
            client.sync("/b"); // answered after the creation's event, if it was sent to us
            if (seen == null) {
                w.expect(Type.NODE_CREATED, "/b/ready");
                assertEquals(Set.of(), client.watchedPaths(), "round " + i);
            } else {
                assertEquals(0, w.pending(), "round " + i + ": " + w.all());
                assertEquals(Set.of("/b/ready"), client.watchedPaths(), "round " + i);
                client.removeWatches("/b/ready", w, WatcherType.DATA, false);
                w.expect(Type.DATA_WATCH_REMOVED, "/b/ready");
            }
            client.delete("/b/me", -1);
            other.delete("/b/ready", -1);
            client.sync("/b");
            assertEquals(0, w.pending(), "round " + i + ", after the delete: " + w.all());
        }
    }
}
