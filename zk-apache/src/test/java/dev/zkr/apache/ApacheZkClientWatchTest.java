package dev.zkr.apache;

import dev.zkr.client.AddWatchMode;
import dev.zkr.client.CreateMode;
import dev.zkr.client.Stat;
import dev.zkr.client.WatchedEvent;
import dev.zkr.client.WatcherType;
import dev.zkr.client.ZkException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

import static dev.zkr.client.WatchedEvent.Type.CHILD_WATCH_REMOVED;
import static dev.zkr.client.WatchedEvent.Type.DATA_WATCH_REMOVED;
import static dev.zkr.client.WatchedEvent.Type.NODE_CHILDREN_CHANGED;
import static dev.zkr.client.WatchedEvent.Type.NODE_CREATED;
import static dev.zkr.client.WatchedEvent.Type.NODE_DATA_CHANGED;
import static dev.zkr.client.WatchedEvent.Type.NODE_DELETED;
import static dev.zkr.client.WatchedEvent.Type.PERSISTENT_WATCH_REMOVED;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** One-shot, persistent and recursive watches of {@link ApacheZkClient}, their events, order and removal. */
class ApacheZkClientWatchTest {

    private static EmbeddedZooKeeper server;
    private static ApacheZkClient client;
    private static ApacheZkClient writer;
    private String base;

    @BeforeAll
    static void startServer() {
        server = EmbeddedZooKeeper.start();
        client = ApacheZkClient.connect(server.connectString(), Duration.ofSeconds(10));
        writer = ApacheZkClient.connect(server.connectString(), Duration.ofSeconds(10));
    }

    @AfterAll
    static void stopServer() {
        for (AutoCloseable c : new AutoCloseable[] {client, writer, server}) {
            try {
                if (c != null) {
                    c.close();
                }
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        }
    }

    @BeforeEach
    void makeBase(TestInfo info) {
        base = "/" + info.getTestMethod().orElseThrow().getName();
        writer.create(base, new byte[0], CreateMode.PERSISTENT);
    }

    @AfterEach
    void noWatchLeftBehind() {
        assertEquals(Set.of(), client.watchedPaths(), "watches left behind");
    }

    private static WatchedEvent event(WatchedEvent.Type type, String path, long zxid) {
        return new WatchedEvent(type, path, zxid);
    }

    @Test
    void dataWatchFiresOnceWithTheZxidOfTheChange() {
        writer.create(base + "/n", new byte[0], CreateMode.PERSISTENT);
        Recorder<WatchedEvent> events = Recorder.events();
        client.getData(base + "/n", events.watcher());
        assertEquals(Set.of(base + "/n"), client.watchedPaths());
        Stat changed = writer.setData(base + "/n", new byte[] {1}, -1);
        events.expect(event(NODE_DATA_CHANGED, base + "/n", changed.mzxid()));
        writer.setData(base + "/n", new byte[] {2}, -1);
        events.expectNoneAfterRoundTrip(client);
    }

    @Test
    void existsWatchSeesCreationAndDeletion() {
        Recorder<WatchedEvent> events = Recorder.events();
        assertEquals(null, client.exists(base + "/n", events.watcher()));
        assertEquals(Set.of(base + "/n"), client.watchedPaths());
        Stat created = writer.createWithStat(base + "/n", new byte[0], CreateMode.PERSISTENT,
                dev.zkr.client.Parents.NONE).stat();
        events.expect(event(NODE_CREATED, base + "/n", created.czxid()));
        client.exists(base + "/n", events.watcher());
        writer.delete(base + "/n", -1);
        WatchedEvent deleted = events.next();
        assertEquals(NODE_DELETED, deleted.type());
        assertTrue(deleted.zxid() > created.czxid());
    }

    @Test
    void childWatchFiresOnChildChangeAndDataWatchOnDelete() {
        writer.create(base + "/p", new byte[0], CreateMode.PERSISTENT);
        Recorder<WatchedEvent> children = Recorder.events();
        Recorder<WatchedEvent> data = Recorder.events();
        client.getChildren(base + "/p", children.watcher());
        client.getData(base + "/p", data.watcher());
        Stat child = writer.createWithStat(base + "/p/c", new byte[0], CreateMode.PERSISTENT,
                dev.zkr.client.Parents.NONE).stat();
        children.expect(event(NODE_CHILDREN_CHANGED, base + "/p", child.czxid()));
        data.expectNoneAfterRoundTrip(client);
        client.getChildren(base + "/p", children.watcher());
        writer.delete(base + "/p/c", -1);
        assertEquals(NODE_CHILDREN_CHANGED, children.next().type());
        writer.delete(base + "/p", -1);
        assertEquals(NODE_DELETED, data.next().type());
        children.expectNoneAfterRoundTrip(client);
    }

    @Test
    void eventArrivesBeforeTheResponseThatReflectsTheChange() {
        writer.create(base + "/n", new byte[0], CreateMode.PERSISTENT);
        AtomicInteger seen = new AtomicInteger();
        for (int i = 0; i < 20; i++) {
            client.getData(base + "/n", e -> seen.incrementAndGet());
            int expected = i + 1;
            writer.setData(base + "/n", new byte[] {(byte) i}, -1);
            // the writer's change is committed; our read reflects it, so our event must come first
            CompletableFuture<Integer> seenAtResponse = client.getDataAsync(base + "/n", null)
                    .thenApply(d -> seen.get());
            assertEquals(expected, seenAtResponse.join());
        }
    }

    @Test
    void persistentWatchStaysUntilRemoved() {
        writer.create(base + "/n", new byte[0], CreateMode.PERSISTENT);
        Recorder<WatchedEvent> events = Recorder.events();
        client.addWatch(base + "/n", AddWatchMode.PERSISTENT, events.watcher());
        assertEquals(Set.of(base + "/n"), client.watchedPaths());
        Stat s1 = writer.setData(base + "/n", new byte[] {1}, -1);
        Stat s2 = writer.setData(base + "/n", new byte[] {2}, -1);
        Stat c = writer.createWithStat(base + "/n/c", new byte[0], CreateMode.PERSISTENT,
                dev.zkr.client.Parents.NONE).stat();
        writer.create(base + "/n/c/grandchild", new byte[0], CreateMode.PERSISTENT);
        events.expect(event(NODE_DATA_CHANGED, base + "/n", s1.mzxid()));
        events.expect(event(NODE_DATA_CHANGED, base + "/n", s2.mzxid()));
        events.expect(event(NODE_CHILDREN_CHANGED, base + "/n", c.czxid()));
        events.expectNoneAfterRoundTrip(client);

        client.removeWatches(base + "/n", events.watcher(), WatcherType.PERSISTENT, false);
        events.expect(event(PERSISTENT_WATCH_REMOVED, base + "/n", -1));
        writer.setData(base + "/n", new byte[] {3}, -1);
        events.expectNoneAfterRoundTrip(client);
        assertThrows(ZkException.NoWatcher.class,
                () -> client.removeWatches(base + "/n", events.watcher(), WatcherType.PERSISTENT, false));
    }

    @Test
    void recursiveWatchSeesTheWholeSubtreeButNoChildEvents() {
        Recorder<WatchedEvent> events = Recorder.events();
        client.addWatch(base, AddWatchMode.PERSISTENT_RECURSIVE, events.watcher());
        assertEquals(Set.of(base), client.watchedPaths());
        Stat a = writer.createWithStat(base + "/a", new byte[0], CreateMode.PERSISTENT,
                dev.zkr.client.Parents.NONE).stat();
        Stat b = writer.createWithStat(base + "/a/b", new byte[0], CreateMode.PERSISTENT,
                dev.zkr.client.Parents.NONE).stat();
        Stat set = writer.setData(base + "/a/b", new byte[] {1}, -1);
        writer.delete(base + "/a/b", -1);
        events.expect(event(NODE_CREATED, base + "/a", a.czxid()));
        events.expect(event(NODE_CREATED, base + "/a/b", b.czxid()));
        events.expect(event(NODE_DATA_CHANGED, base + "/a/b", set.mzxid()));
        assertEquals(NODE_DELETED, events.next().type());
        events.expectNoneAfterRoundTrip(client);

        assertThrows(ZkException.NoWatcher.class,
                () -> client.removeWatches(base, events.watcher(), WatcherType.PERSISTENT, false),
                "a recursive watch is not of the Persistent type");
        client.removeWatches(base, events.watcher(), WatcherType.PERSISTENT_RECURSIVE, false);
        events.expect(event(PERSISTENT_WATCH_REMOVED, base, -1));
    }

    @Test
    void removingOneShotWatchesSendsRemovedEvents() {
        writer.create(base + "/n", new byte[0], CreateMode.PERSISTENT);
        Recorder<WatchedEvent> data = Recorder.events();
        Recorder<WatchedEvent> children = Recorder.events();
        client.getData(base + "/n", data.watcher());
        client.exists(base + "/missing", data.watcher());
        client.getChildren(base + "/n", children.watcher());
        assertEquals(Set.of(base + "/n", base + "/missing"), client.watchedPaths());

        assertThrows(ZkException.NoWatcher.class,
                () -> client.removeWatches(base + "/n", data.watcher(), WatcherType.CHILDREN, false));
        client.removeWatches(base + "/n", data.watcher(), WatcherType.DATA, false);
        data.expect(event(DATA_WATCH_REMOVED, base + "/n", -1));
        client.removeWatches(base + "/missing", data.watcher(), WatcherType.ANY, false);
        data.expect(event(DATA_WATCH_REMOVED, base + "/missing", -1));
        assertEquals(Set.of(base + "/n"), client.watchedPaths());
        client.removeWatches(base + "/n", children.watcher(), WatcherType.CHILDREN, true);
        children.expect(event(CHILD_WATCH_REMOVED, base + "/n", -1));
        assertEquals(Set.of(), client.watchedPaths());

        writer.setData(base + "/n", new byte[] {1}, -1);
        writer.create(base + "/n/c", new byte[0], CreateMode.PERSISTENT);
        writer.create(base + "/missing", new byte[0], CreateMode.PERSISTENT);
        data.expectNoneAfterRoundTrip(client);
        children.expectNoneAfterRoundTrip(client);
    }

    @Test
    void sameWatcherOnOnePathIsOneWatchAsInZooKeeper() {
        writer.create(base + "/n", new byte[0], CreateMode.PERSISTENT);
        Recorder<WatchedEvent> events = Recorder.events();
        client.getData(base + "/n", events.watcher());
        client.exists(base + "/n", events.watcher());
        writer.setData(base + "/n", new byte[] {1}, -1);
        assertEquals(NODE_DATA_CHANGED, events.next().type());
        events.expectNoneAfterRoundTrip(client);
        assertEquals(List.of(NODE_DATA_CHANGED), events.all().stream().map(WatchedEvent::type).toList());
    }
}
