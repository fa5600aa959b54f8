package dev.zkr.contract;

import dev.zkr.client.AddWatchMode;
import dev.zkr.client.CreateMode;
import dev.zkr.client.Stat;
import dev.zkr.client.WatchedEvent;
import dev.zkr.client.WatchedEvent.Type;
import dev.zkr.client.WatcherType;
import dev.zkr.client.ZkClient;
import dev.zkr.client.ZkException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static dev.zkr.contract.NodeContractTest.bytes;
import static dev.zkr.contract.NodeContractTest.failure;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The watch part of the contract: one-shot data/exists/child watches with ZooKeeper's events, the ordering
 * guarantee, persistent and recursive watches, removal. A one-shot watch that must not fire again is checked after
 * a later response of the same client: events always arrive before the responses that follow them.
 */
class WatchContractTest {

    @TempDir
    static Path dir;
    static TestServer server;
    static ZkClient client;
    static ZkClient other;

    @BeforeAll
    static void start() {
        server = TestServer.start(dir);
        client = server.client();
        other = server.client();
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    @Test
    void dataWatchFiresOnceOnChangeWithTheChangesZxid() {
        client.create("/d", bytes("0"), CreateMode.PERSISTENT);
        RecordingWatcher w = new RecordingWatcher();
        client.getData("/d", w);
        client.getData("/d", w); // same watcher twice on a path: one registration
        assertEquals(Set.of("/d"), Set.copyOf(client.watchedPaths()));
        Stat changed = other.setData("/d", bytes("1"), -1);
        WatchedEvent e = w.expect(Type.NODE_DATA_CHANGED, "/d");
        assertEquals(changed.mzxid(), e.zxid());
        client.setData("/d", bytes("2"), -1);
        assertEquals(0, w.pending(), "one-shot watch fired twice: " + w.all());
        assertTrue(client.watchedPaths().isEmpty());
    }

    @Test
    void dataWatchFiresOnDelete() {
        client.create("/dd", null, CreateMode.PERSISTENT);
        RecordingWatcher w = new RecordingWatcher();
        client.getData("/dd", w);
        other.delete("/dd", -1);
        w.expect(Type.NODE_DELETED, "/dd");
    }

    @Test
    void existsWatchOnAMissingNodeFiresOnCreate() {
        RecordingWatcher w = new RecordingWatcher();
        assertNull(client.exists("/e", w));
        assertEquals(Set.of("/e"), Set.copyOf(client.watchedPaths()));
        other.create("/e", null, CreateMode.PERSISTENT);
        w.expect(Type.NODE_CREATED, "/e");
        RecordingWatcher w2 = new RecordingWatcher();
        client.exists("/e", w2);
        other.setData("/e", bytes("x"), -1);
        w2.expect(Type.NODE_DATA_CHANGED, "/e");
        RecordingWatcher w3 = new RecordingWatcher();
        client.exists("/e", w3);
        other.delete("/e", -1);
        w3.expect(Type.NODE_DELETED, "/e");
        client.sync("/e");
        assertEquals(0, w.pending() + w2.pending() + w3.pending());
    }

    @Test
    void failedReadsRegisterNoWatch() {
        RecordingWatcher w = new RecordingWatcher();
        assertThrows(ZkException.NoNode.class, () -> client.getData("/nope", w));
        assertThrows(ZkException.NoNode.class, () -> client.getChildren("/nope", w));
        assertTrue(client.watchedPaths().isEmpty());
    }

    @Test
    void childWatchFiresOnChildChangeAndOnDelete() {
        client.create("/c", null, CreateMode.PERSISTENT);
        RecordingWatcher w = new RecordingWatcher();
        client.getChildren("/c", w);
        other.setData("/c", bytes("data change is not a child event"), -1);
        other.create("/c/k", null, CreateMode.PERSISTENT);
        w.expect(Type.NODE_CHILDREN_CHANGED, "/c");
        client.getChildren("/c", w);
        other.delete("/c/k", -1);
        w.expect(Type.NODE_CHILDREN_CHANGED, "/c");
        RecordingWatcher gone = new RecordingWatcher();
        client.getChildren("/c", gone);
        client.getData("/c", gone);
        other.delete("/c", -1);
        gone.expect(Type.NODE_DELETED, "/c");
        client.sync("/");
        assertEquals(0, gone.pending(), "a watcher with data + child watches on a path gets one event");
        assertEquals(0, w.pending());
    }

    @Test
    void aWatcherSeesItsEventBeforeTheResponseThatReflectsTheChange() throws Exception {
        client.create("/o", bytes("0"), CreateMode.PERSISTENT);
        for (int round = 0; round < 20; round++) {
            List<String> seen = Collections.synchronizedList(new ArrayList<>());
            client.getData("/o", e -> seen.add("event " + e.type()));
            // the writer's own response reflects the change: the event comes first
            client.setDataAsync("/o", bytes("" + round), -1).thenRun(() -> seen.add("response"))
                    .get(5, TimeUnit.SECONDS);
            assertEquals(List.of("event NODE_DATA_CHANGED", "response"), seen);
        }
        // another client's change: a later read that sees it completes after the event
        for (int round = 0; round < 20; round++) {
            List<String> seen = Collections.synchronizedList(new ArrayList<>());
            client.getData("/o", e -> seen.add("event"));
            Stat written = other.setData("/o", bytes("x" + round), -1);
            Stat read = client.existsAsync("/o", null).thenApply(s -> {
                seen.add("read");
                return s;
            }).get(5, TimeUnit.SECONDS);
            assertEquals(written.mzxid(), read.mzxid());
            assertEquals(List.of("event", "read"), seen);
        }
    }

    @Test
    void watchersRunOnTheEventThread() throws Exception {
        client.create("/t", null, CreateMode.PERSISTENT);
        RecordingWatcher w = new RecordingWatcher();
        client.getData("/t", w);
        // a watcher holds the event thread until the callback below is attached, so the reply cannot complete the
        // future before (a callback attached to a completed future would run right here, on the caller)
        java.util.concurrent.CountDownLatch attached = new java.util.concurrent.CountDownLatch(1);
        client.exists("/hold", e -> {
            try {
                attached.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException ie) {
                Thread.currentThread().interrupt();
            }
        });
        client.createAsync("/hold", null, CreateMode.PERSISTENT); // its event is queued before the replies below
        java.util.concurrent.CompletableFuture<Thread> completing = client.setDataAsync("/t", null, -1)
                .thenApply(s -> Thread.currentThread());
        attached.countDown();
        Thread completion = completing.get(10, TimeUnit.SECONDS);
        w.next();
        assertSame(completion, w.lastThread);
        assertTrue(completion.getName().startsWith("zkr-client-event"), completion.getName());
    }

    @Test
    void persistentWatchSeesEveryEventOfItsNode() {
        client.create("/p", null, CreateMode.PERSISTENT);
        RecordingWatcher w = new RecordingWatcher();
        client.addWatch("/p", AddWatchMode.PERSISTENT, w);
        other.setData("/p", bytes("1"), -1);
        w.expect(Type.NODE_DATA_CHANGED, "/p");
        other.setData("/p", bytes("2"), -1);
        w.expect(Type.NODE_DATA_CHANGED, "/p");
        other.create("/p/k", null, CreateMode.PERSISTENT);
        w.expect(Type.NODE_CHILDREN_CHANGED, "/p");
        other.setData("/p/k", bytes("grandchild changes are not ours"), -1);
        other.delete("/p/k", -1);
        w.expect(Type.NODE_CHILDREN_CHANGED, "/p");
        other.delete("/p", -1);
        w.expect(Type.NODE_DELETED, "/p");
        other.create("/p", null, CreateMode.PERSISTENT);
        w.expect(Type.NODE_CREATED, "/p");
        assertEquals(Set.of("/p"), Set.copyOf(client.watchedPaths()));
        client.removeWatches("/p", w, WatcherType.PERSISTENT, false);
        w.expect(Type.PERSISTENT_WATCH_REMOVED, "/p");
        client.setData("/p", bytes("3"), -1);
        assertEquals(0, w.pending(), w.all().toString());
        assertTrue(client.watchedPaths().isEmpty());
    }

    @Test
    void persistentAndRecursiveWatchesAreRemovedByTheirOwnType() {
        client.create("/pr", null, CreateMode.PERSISTENT);
        RecordingWatcher w = new RecordingWatcher();
        client.addWatch("/pr", AddWatchMode.PERSISTENT, w);
        client.addWatch("/pr", AddWatchMode.PERSISTENT_RECURSIVE, w);
        client.removeWatches("/pr", w, WatcherType.PERSISTENT, false);
        w.expect(Type.PERSISTENT_WATCH_REMOVED, "/pr");
        assertEquals(ZkException.Code.NO_WATCHER, failure(client.removeWatchesAsync("/pr", w, WatcherType.PERSISTENT, false))
                .code(), "ZooKeeper's Persistent type leaves the recursive watch");
        other.create("/pr/a", null, CreateMode.PERSISTENT);
        w.expect(Type.NODE_CREATED, "/pr/a"); // the recursive watch, still on the server
        other.setData("/pr", bytes("1"), -1);
        w.expect(Type.NODE_DATA_CHANGED, "/pr");
        client.removeWatches("/pr", w, WatcherType.PERSISTENT_RECURSIVE, false);
        w.expect(Type.PERSISTENT_WATCH_REMOVED, "/pr");
        other.create("/pr/b", null, CreateMode.PERSISTENT);
        other.setData("/pr", bytes("2"), -1);
        client.sync("/");
        client.exists("/pr/b");
        assertEquals(0, w.pending(), w.all().toString());
        // both kinds removed with ANY: one removal event, as ZooKeeper's client gives
        client.addWatch("/pr", AddWatchMode.PERSISTENT, w);
        client.addWatch("/pr", AddWatchMode.PERSISTENT_RECURSIVE, w);
        client.removeWatches("/pr", w, WatcherType.ANY, false);
        w.expect(Type.PERSISTENT_WATCH_REMOVED, "/pr");
        other.create("/pr/c", null, CreateMode.PERSISTENT);
        client.sync("/");
        client.exists("/pr/c");
        assertEquals(0, w.pending(), w.all().toString());
        assertTrue(client.watchedPaths().isEmpty());
    }

    @Test
    void recursiveWatchSeesDescendantsButNoChildEvents() {
        client.create("/r", null, CreateMode.PERSISTENT);
        RecordingWatcher w = new RecordingWatcher();
        client.addWatch("/r", AddWatchMode.PERSISTENT_RECURSIVE, w);
        other.create("/r/a", null, CreateMode.PERSISTENT);
        w.expect(Type.NODE_CREATED, "/r/a");
        other.create("/r/a/b", null, CreateMode.PERSISTENT);
        w.expect(Type.NODE_CREATED, "/r/a/b");
        other.setData("/r/a/b", bytes("x"), -1);
        w.expect(Type.NODE_DATA_CHANGED, "/r/a/b");
        other.delete("/r/a/b", -1);
        w.expect(Type.NODE_DELETED, "/r/a/b");
        other.setData("/r", bytes("y"), -1);
        w.expect(Type.NODE_DATA_CHANGED, "/r");
        other.create("/rx", null, CreateMode.PERSISTENT); // a sibling with a common prefix is not a descendant
        client.removeWatches("/r", w, WatcherType.ANY, false);
        w.expect(Type.PERSISTENT_WATCH_REMOVED, "/r");
        other.create("/r/z", null, CreateMode.PERSISTENT);
        client.sync("/");
        client.exists("/r/z");
        assertEquals(0, w.pending(), w.all().toString());
    }

    @Test
    void removeWatchesDeliversTheRemovalEventAndKeepsOtherWatchers() {
        client.create("/rm", null, CreateMode.PERSISTENT);
        RecordingWatcher a = new RecordingWatcher();
        RecordingWatcher b = new RecordingWatcher();
        client.getData("/rm", a);
        client.exists("/rm", b);
        client.getChildren("/rm", a);
        ZkException none = failure(client.removeWatchesAsync("/rm", b, WatcherType.CHILDREN, false));
        assertInstanceOf(ZkException.NoWatcher.class, none);
        assertEquals("/rm", none.path());

        client.removeWatches("/rm", a, WatcherType.DATA, false);
        a.expect(Type.DATA_WATCH_REMOVED, "/rm");
        other.setData("/rm", bytes("1"), -1);
        b.expect(Type.NODE_DATA_CHANGED, "/rm");   // b's exists watch survives a's removal
        other.create("/rm/k", null, CreateMode.PERSISTENT);
        a.expect(Type.NODE_CHILDREN_CHANGED, "/rm"); // a's child watch was not of the removed type
        assertEquals(0, a.pending());
        assertInstanceOf(ZkException.NoWatcher.class,
                failure(client.removeWatchesAsync("/rm", a, WatcherType.ANY, false)));

        client.getChildren("/rm", a);
        client.removeWatches("/rm", a, WatcherType.ANY, true);
        a.expect(Type.CHILD_WATCH_REMOVED, "/rm");
        other.create("/rm/k2", null, CreateMode.PERSISTENT);
        client.sync("/rm");
        client.getChildren("/rm");
        assertEquals(0, a.pending() + b.pending(), a.all() + " " + b.all());
        assertInstanceOf(ZkException.InvalidPath.class,
                failure(client.removeWatchesAsync("bad", a, WatcherType.ANY, false)));
    }

    @Test
    void manyWatchersOnePathEachFiresOnce() throws Exception {
        client.create("/many", null, CreateMode.PERSISTENT);
        List<RecordingWatcher> watchers = new ArrayList<>();
        List<CompletableFuture<?>> reads = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            RecordingWatcher w = new RecordingWatcher();
            watchers.add(w);
            reads.add(client.getDataAsync("/many", w));
        }
        CompletableFuture.allOf(reads.toArray(CompletableFuture[]::new)).get(5, TimeUnit.SECONDS);
        other.delete("/many", -1);
        for (RecordingWatcher w : watchers) {
            w.expect(Type.NODE_DELETED, "/many");
        }
        client.sync("/");
        for (RecordingWatcher w : watchers) {
            assertEquals(0, w.pending());
        }
    }
}
