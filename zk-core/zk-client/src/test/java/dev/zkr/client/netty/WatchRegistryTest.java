package dev.zkr.client.netty;

import dev.zkr.client.WatchedEvent.Type;
import dev.zkr.client.Watcher;
import dev.zkr.client.WatcherType;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class WatchRegistryTest {

    private final WatchRegistry registry = new WatchRegistry();
    private final Watcher a = e -> { };
    private final Watcher b = e -> { };

    @Test
    void sameWatcherTwiceOnAPathFiresOnceAndOneShotsAreConsumed() {
        registry.add(WatchRegistry.Kind.DATA, "/x", a);
        registry.add(WatchRegistry.Kind.DATA, "/x", a);
        registry.add(WatchRegistry.Kind.EXIST, "/x", a);
        assertEquals(Set.of(a), registry.materialize(Type.NODE_DATA_CHANGED, "/x"));
        assertTrue(registry.materialize(Type.NODE_DATA_CHANGED, "/x").isEmpty());
        assertTrue(registry.paths().isEmpty());
    }

    @Test
    void routesEventTypesLikeZooKeeper() {
        registry.add(WatchRegistry.Kind.DATA, "/x", a);
        registry.add(WatchRegistry.Kind.CHILD, "/x", b);
        assertEquals(Set.of(b), registry.materialize(Type.NODE_CHILDREN_CHANGED, "/x"));
        assertEquals(Set.of(a), registry.materialize(Type.NODE_CREATED, "/x"));

        registry.add(WatchRegistry.Kind.EXIST, "/y", a);
        registry.add(WatchRegistry.Kind.CHILD, "/y", b);
        assertEquals(Set.of(a, b), registry.materialize(Type.NODE_DELETED, "/y"));
        assertTrue(registry.paths().isEmpty());
    }

    @Test
    void persistentWatchesStayAndRecursiveOnesSkipChildEvents() {
        registry.add(WatchRegistry.Kind.PERSISTENT, "/p", a);
        registry.add(WatchRegistry.Kind.RECURSIVE, "/", b);
        assertEquals(Set.of(a, b), registry.materialize(Type.NODE_DATA_CHANGED, "/p"));
        assertEquals(Set.of(a), registry.materialize(Type.NODE_CHILDREN_CHANGED, "/p"));
        assertEquals(Set.of(b), registry.materialize(Type.NODE_CREATED, "/p/q/r"));
        assertEquals(Set.of("/", "/p"), registry.paths());
    }

    @Test
    void removalReportsEventsAndServerTypesOnlyWhenNoOtherWatcherRemains() {
        registry.add(WatchRegistry.Kind.DATA, "/x", a);
        registry.add(WatchRegistry.Kind.EXIST, "/x", b);
        WatchRegistry.Removal first = registry.remove("/x", a, WatcherType.DATA);
        assertEquals(List.of(new WatchRegistry.Removed(a, new dev.zkr.client.WatchedEvent(Type.DATA_WATCH_REMOVED, "/x", -1))),
                first.removed());
        assertTrue(first.serverTypes().isEmpty());
        assertNull(registry.remove("/x", a, WatcherType.DATA));
        assertNull(registry.remove("/x", b, WatcherType.CHILDREN));
        WatchRegistry.Removal second = registry.remove("/x", b, WatcherType.ANY);
        assertEquals(Set.of(WatcherType.DATA), second.serverTypes());
        assertTrue(registry.paths().isEmpty());
    }

    @Test
    void snapshotListsPathsPerKind() {
        registry.add(WatchRegistry.Kind.DATA, "/d", a);
        registry.add(WatchRegistry.Kind.EXIST, "/e", a);
        registry.add(WatchRegistry.Kind.CHILD, "/c", a);
        registry.add(WatchRegistry.Kind.PERSISTENT, "/p", a);
        registry.add(WatchRegistry.Kind.RECURSIVE, "/r", a);
        WatchRegistry.Snapshot s = registry.snapshot();
        assertEquals(List.of("/d"), List.of(s.data()));
        assertEquals(List.of("/e"), List.of(s.exist()));
        assertEquals(List.of("/c"), List.of(s.child()));
        assertEquals(List.of("/p"), List.of(s.persistent()));
        assertEquals(List.of("/r"), List.of(s.recursive()));
        registry.clear();
        assertTrue(registry.snapshot().isEmpty());
    }
}
