package dev.zkr.tree;

import dev.zkr.client.AddWatchMode;
import dev.zkr.client.CreateMode;
import dev.zkr.client.WatchedEvent;
import dev.zkr.client.WatchedEvent.Type;
import dev.zkr.client.WatcherType;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class WatchTableTest {
    private final Pipeline p = new Pipeline();
    private final WatchTable w = p.watches;

    private List<WatchDelivery> drain() {
        List<WatchDelivery> d = List.copyOf(p.delivered);
        p.delivered.clear();
        return d;
    }

    private WatchDelivery d(long session, Type type, String path) {
        return new WatchDelivery(session, new WatchedEvent(type, path, p.zxid));
    }

    @Test
    void existsWatchFiresOnCreateOnce() {
        w.addExistsWatch(1, "/a");
        w.addChildWatch(2, "/");
        p.create("/a");
        assertEquals(List.of(d(1, Type.NODE_CREATED, "/a"), d(2, Type.NODE_CHILDREN_CHANGED, "/")), drain());
        p.setData("/a", "x", -1);
        assertEquals(List.of(), drain(), "one-shot watches are gone");
        assertEquals(0, w.size());
    }

    @Test
    void dataChangeFiresDataAndExistsWatches() {
        p.create("/a");
        w.addDataWatch(1, "/a");
        w.addExistsWatch(2, "/a");
        w.addChildWatch(3, "/a");
        p.setData("/a", "x", -1);
        assertEquals(List.of(d(1, Type.NODE_DATA_CHANGED, "/a"), d(2, Type.NODE_DATA_CHANGED, "/a")), drain());
        assertEquals(1, w.size());
    }

    @Test
    void deleteFiresNodeWatchesThenParentChildWatches() {
        p.create("/a");
        p.create("/a/b");
        w.addDataWatch(1, "/a/b");
        w.addChildWatch(2, "/a/b");
        w.addChildWatch(3, "/a");
        w.addDataWatch(3, "/a");
        p.delete("/a/b", -1);
        assertEquals(List.of(d(1, Type.NODE_DELETED, "/a/b"), d(2, Type.NODE_DELETED, "/a/b"),
                d(3, Type.NODE_CHILDREN_CHANGED, "/a")), drain());
        assertEquals(1, w.size(), "data watch on /a stays");
    }

    @Test
    void sessionGetsEachEventOnceEvenWithSeveralWatches() {
        p.create("/a");
        w.addDataWatch(1, "/a");
        w.addChildWatch(1, "/a");
        w.addPersistentWatch(1, "/a", AddWatchMode.PERSISTENT);
        w.addPersistentWatch(1, "/", AddWatchMode.PERSISTENT_RECURSIVE);
        p.delete("/a", -1);
        assertEquals(List.of(d(1, Type.NODE_DELETED, "/a")), drain());
    }

    @Test
    void persistentWatchesStayAndSeeChildEvents() {
        p.create("/a");
        w.addPersistentWatch(1, "/a", AddWatchMode.PERSISTENT);
        p.create("/a/b");
        assertEquals(List.of(d(1, Type.NODE_CHILDREN_CHANGED, "/a")), drain());
        p.setData("/a", "1", -1);
        assertEquals(List.of(d(1, Type.NODE_DATA_CHANGED, "/a")), drain());
        p.setData("/a/b", "1", -1);
        assertEquals(List.of(), drain(), "not recursive");
        p.delete("/a/b", -1);
        p.delete("/a", -1);
        assertEquals(List.of(new WatchDelivery(1, new WatchedEvent(Type.NODE_CHILDREN_CHANGED, "/a", p.zxid - 1)),
                d(1, Type.NODE_DELETED, "/a")), drain());
        p.create("/a");
        assertEquals(List.of(d(1, Type.NODE_CREATED, "/a")), drain(), "survives delete");
    }

    @Test
    void recursiveWatchesSeeDescendantsButNoChildEvents() {
        p.create("/r");
        w.addPersistentWatch(7, "/r", AddWatchMode.PERSISTENT_RECURSIVE);
        p.create("/r/a");
        assertEquals(List.of(d(7, Type.NODE_CREATED, "/r/a")), drain());
        p.create("/r/a/b");
        assertEquals(List.of(d(7, Type.NODE_CREATED, "/r/a/b")), drain());
        p.setData("/r/a/b", "x", -1);
        assertEquals(List.of(d(7, Type.NODE_DATA_CHANGED, "/r/a/b")), drain());
        p.delete("/r/a/b", -1);
        assertEquals(List.of(d(7, Type.NODE_DELETED, "/r/a/b")), drain());
        p.create("/rx");
        assertEquals(List.of(), drain(), "sibling with common prefix is not a descendant");
    }

    @Test
    void removeByType() {
        w.addDataWatch(1, "/a");
        w.addChildWatch(1, "/a");
        w.addPersistentWatch(1, "/a", AddWatchMode.PERSISTENT);
        w.addPersistentWatch(1, "/a", AddWatchMode.PERSISTENT_RECURSIVE);
        assertFalse(w.remove(2, "/a", WatcherType.ANY));
        assertTrue(w.remove(1, "/a", WatcherType.CHILDREN));
        assertFalse(w.remove(1, "/a", WatcherType.CHILDREN));
        assertTrue(w.remove(1, "/a", WatcherType.PERSISTENT), "the persistent watch");
        assertFalse(w.remove(1, "/a", WatcherType.PERSISTENT), "ZooKeeper's type 4 leaves the recursive watch");
        assertEquals(2, w.size());
        assertTrue(w.remove(1, "/a", WatcherType.PERSISTENT_RECURSIVE));
        assertFalse(w.remove(1, "/a", WatcherType.PERSISTENT_RECURSIVE));
        assertEquals(1, w.size());
        assertTrue(w.remove(1, "/a", WatcherType.ANY));
        assertEquals(0, w.size());
        p.create("/a");
        assertEquals(List.of(), drain());
    }

    @Test
    void containsChecksOneKindWithoutRemovingIt() {
        w.addDataWatch(1, "/a");
        w.addPersistentWatch(1, "/b", AddWatchMode.PERSISTENT_RECURSIVE);
        w.addPersistentWatch(1, "/c", AddWatchMode.PERSISTENT);
        w.addChildWatch(2, "/a");
        assertTrue(w.contains(1, "/a", WatcherType.DATA));
        assertTrue(w.contains(1, "/a", WatcherType.ANY));
        assertFalse(w.contains(1, "/a", WatcherType.CHILDREN), "session 2's child watch is not session 1's");
        assertTrue(w.contains(2, "/a", WatcherType.CHILDREN));
        assertTrue(w.contains(1, "/b", WatcherType.PERSISTENT_RECURSIVE));
        assertFalse(w.contains(1, "/b", WatcherType.PERSISTENT));
        assertTrue(w.contains(1, "/c", WatcherType.PERSISTENT));
        assertFalse(w.contains(1, "/c", WatcherType.PERSISTENT_RECURSIVE));
        assertFalse(w.contains(1, "/c", WatcherType.DATA));
        assertFalse(w.contains(3, "/a", WatcherType.ANY));
        assertEquals(4, w.size(), "nothing removed");
        p.create("/a");
        assertFalse(w.contains(1, "/a", WatcherType.DATA), "fired");
    }

    @Test
    void removeSessionDropsEverything() {
        w.addDataWatch(1, "/a");
        w.addChildWatch(1, "/");
        w.addPersistentWatch(1, "/", AddWatchMode.PERSISTENT_RECURSIVE);
        w.addExistsWatch(2, "/a");
        w.removeSession(1);
        assertEquals(1, w.size());
        p.create("/a");
        assertEquals(List.of(d(2, Type.NODE_CREATED, "/a")), drain());
    }

    private WatchDelivery withData(long session, Type type, String path) {
        return new WatchDelivery(session, new WatchedEvent(type, path, p.zxid), null, true);
    }

    @Test
    void watchesWithDataMarkTheirSessionsCreatedAndChangedDeliveriesOnly() {
        p.create("/r");
        w.addPersistentWatchWithData(1, "/r", AddWatchMode.PERSISTENT_RECURSIVE);
        w.addPersistentWatch(2, "/r", AddWatchMode.PERSISTENT_RECURSIVE);
        w.addPersistentWatchWithData(3, "/r/a", AddWatchMode.PERSISTENT);
        w.addPersistentWatch(3, "/r", AddWatchMode.PERSISTENT_RECURSIVE); // its data mark is on /r/a only
        p.create("/r/a");
        assertEquals(List.of(withData(3, Type.NODE_CREATED, "/r/a"), withData(1, Type.NODE_CREATED, "/r/a"),
                d(2, Type.NODE_CREATED, "/r/a")), drain());
        p.create("/r/b");
        assertEquals(List.of(withData(1, Type.NODE_CREATED, "/r/b"), d(2, Type.NODE_CREATED, "/r/b"),
                d(3, Type.NODE_CREATED, "/r/b")), drain());
        p.setData("/r/a", "x", -1);
        assertEquals(List.of(withData(3, Type.NODE_DATA_CHANGED, "/r/a"), withData(1, Type.NODE_DATA_CHANGED, "/r/a"),
                d(2, Type.NODE_DATA_CHANGED, "/r/a")), drain());
        p.create("/r/a/k");
        assertEquals(List.of(withData(1, Type.NODE_CREATED, "/r/a/k"), d(2, Type.NODE_CREATED, "/r/a/k"),
                d(3, Type.NODE_CREATED, "/r/a/k"), d(3, Type.NODE_CHILDREN_CHANGED, "/r/a")), drain());
        p.delete("/r/a/k", -1);
        assertEquals(List.of(d(1, Type.NODE_DELETED, "/r/a/k"), d(2, Type.NODE_DELETED, "/r/a/k"),
                d(3, Type.NODE_DELETED, "/r/a/k"), d(3, Type.NODE_CHILDREN_CHANGED, "/r/a")), drain());
    }

    @Test
    void aClosedSessionsDataMarksGoWithIt() {
        p.create("/a");
        w.addPersistentWatchWithData(1, "/a", AddWatchMode.PERSISTENT);
        w.addPersistentWatchWithData(1, "/", AddWatchMode.PERSISTENT_RECURSIVE);
        w.removeSession(1);
        w.addPersistentWatch(1, "/a", AddWatchMode.PERSISTENT);
        w.addPersistentWatch(1, "/", AddWatchMode.PERSISTENT_RECURSIVE);
        p.setData("/a", "x", -1);
        assertEquals(List.of(d(1, Type.NODE_DATA_CHANGED, "/a")), drain());
    }

    @Test
    void setWatchesRegistersTheMarksItIsGiven() {
        p.create("/p");
        p.create("/r");
        w.setWatches(9, p.zxid, p.tree, p.tree::exists, List.of(), List.of(), List.of(), List.of("/p"),
                List.of("/r"), List.of("/p"), List.of("/r"));
        assertEquals(2, w.size(), "a mark is not a watch of its own");
        p.setData("/p", "x", -1);
        assertEquals(List.of(withData(9, Type.NODE_DATA_CHANGED, "/p")), drain());
        p.create("/r/k");
        assertEquals(List.of(withData(9, Type.NODE_CREATED, "/r/k")), drain());
    }

    @Test
    void setWatchesReportsMissedEventsAndRegistersTheRest() {
        p.create("/changed");
        p.create("/same");
        p.create("/deleted");
        p.create("/parent");
        p.create("/quiet");
        long last = p.zxid;
        p.setData("/changed", "x", -1);
        long changedAt = p.zxid;
        p.delete("/deleted", -1);
        p.create("/parent/kid");
        long kidAt = p.zxid;
        p.create("/born");
        long bornAt = p.zxid;
        long now = p.zxid;
        List<WatchDelivery> missed = w.setWatches(9, last, p.tree,
                List.of("/changed", "/same", "/deleted"),
                List.of("/born", "/unborn"),
                List.of("/parent", "/quiet", "/deleted"),
                List.of("/p"), List.of("/r"));
        assertEquals(List.of(
                new WatchDelivery(9, new WatchedEvent(Type.NODE_DATA_CHANGED, "/changed", changedAt)),
                new WatchDelivery(9, new WatchedEvent(Type.NODE_DELETED, "/deleted", now)),
                new WatchDelivery(9, new WatchedEvent(Type.NODE_CREATED, "/born", bornAt)),
                new WatchDelivery(9, new WatchedEvent(Type.NODE_CHILDREN_CHANGED, "/parent", kidAt)),
                new WatchDelivery(9, new WatchedEvent(Type.NODE_DELETED, "/deleted", now))), missed);
        // registered: data /same, exists /unborn, child /quiet, persistent /p, recursive /r
        assertEquals(5, w.size());
        p.create("/unborn");
        assertEquals(List.of(d(9, Type.NODE_CREATED, "/unborn")), drain());
        p.create("/quiet/k");
        assertEquals(List.of(d(9, Type.NODE_CHILDREN_CHANGED, "/quiet")), drain());
    }

    @Test
    void closeSessionFiresEphemeralDeletes() {
        p.openSession(5);
        p.create("/l");
        p.create(5, "/l/e", "", CreateMode.EPHEMERAL);
        w.addExistsWatch(6, "/l/e");
        w.addChildWatch(6, "/l");
        p.closeSession(5);
        assertEquals(List.of(d(6, Type.NODE_DELETED, "/l/e"), d(6, Type.NODE_CHILDREN_CHANGED, "/l")), drain());
    }
}
