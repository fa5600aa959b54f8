package dev.zkr.client.netty;

import dev.zkr.client.WatchedEvent;
import dev.zkr.client.Watcher;
import dev.zkr.client.WatcherType;
import dev.zkr.client.ZkPaths;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The client-side watch manager (ZooKeeper's ZKWatchManager): which local {@link Watcher}s wait on which paths,
 * and which of them a server event reaches. One-shot watchers are kept per path in sets (the same watcher object
 * registered twice on a path fires once) and removed when they fire; persistent ones stay until removed.
 * Thread-safe (every method synchronises on the registry).
 */
final class WatchRegistry {

    /** The kinds of registration, as the server knows them. */
    enum Kind { DATA, EXIST, CHILD, PERSISTENT, RECURSIVE }

    private final List<Map<String, Set<Watcher>>> byKind = new ArrayList<>();
    /** PERSISTENT and RECURSIVE paths whose watch the server was asked to send with data (until it is removed). */
    private final Set<String> persistentWithData = new java.util.HashSet<>();
    private final Set<String> recursiveWithData = new java.util.HashSet<>();

    WatchRegistry() {
        for (int i = 0; i < Kind.values().length; i++) {
            byKind.add(new HashMap<>());
        }
    }

    private Map<String, Set<Watcher>> map(Kind kind) {
        return byKind.get(kind.ordinal());
    }

    /** A watcher and the removal event it must receive. */
    record Removed(Watcher watcher, WatchedEvent event) {
    }

    /** What a removal did locally, and which watch types the server no longer needs on the path. */
    record Removal(List<Removed> removed, Set<WatcherType> serverTypes) {
    }

    /**
     * The registered paths per kind, for re-registration after a reconnect; the last two: the persistent and
     * recursive paths (also in the two before) whose watch sends data.
     */
    record Snapshot(String[] data, String[] exist, String[] child, String[] persistent, String[] recursive,
                    String[] persistentWithData, String[] recursiveWithData) {
        boolean isEmpty() {
            return data.length + exist.length + child.length + persistent.length + recursive.length == 0;
        }

        boolean withData() {
            return persistentWithData.length + recursiveWithData.length > 0;
        }
    }

    synchronized void add(Kind kind, String path, Watcher watcher) {
        map(kind).computeIfAbsent(path, p -> new LinkedHashSet<>(2)).add(watcher);
    }

    /** A PERSISTENT or RECURSIVE registration whose server watch was set with data. */
    synchronized void addWithData(Kind kind, String path, Watcher watcher) {
        add(kind, path, watcher);
        (kind == Kind.RECURSIVE ? recursiveWithData : persistentWithData).add(path);
    }

    /**
     * The watchers a server event reaches, with ZooKeeper's routing; one-shot watchers found are removed.
     * Created and data-changed reach data and exist watchers; deleted reaches data, exist and child watchers;
     * children-changed reaches child watchers. Persistent watchers on the path get every event; recursive
     * watchers on the path or an ancestor get every event except children-changed.
     */
    synchronized Set<Watcher> materialize(WatchedEvent.Type type, String path) {
        Set<Watcher> result = new LinkedHashSet<>();
        switch (type) {
            case NODE_CREATED, NODE_DATA_CHANGED -> {
                take(Kind.DATA, path, result);
                take(Kind.EXIST, path, result);
            }
            case NODE_DELETED -> {
                take(Kind.DATA, path, result);
                take(Kind.EXIST, path, result);
                take(Kind.CHILD, path, result);
            }
            case NODE_CHILDREN_CHANGED -> take(Kind.CHILD, path, result);
            default -> {
                return result; // removal events are produced locally, never routed from the server
            }
        }
        addAll(map(Kind.PERSISTENT).get(path), result);
        if (type != WatchedEvent.Type.NODE_CHILDREN_CHANGED) {
            Map<String, Set<Watcher>> recursive = map(Kind.RECURSIVE);
            if (!recursive.isEmpty()) {
                for (String p = path; p != null; p = ZkPaths.parent(p)) {
                    addAll(recursive.get(p), result);
                }
            }
        }
        return result;
    }

    /**
     * Removes a watcher's (or, with a null watcher, every watcher's) registrations of a type on a path.
     *
     * @return the removal events to deliver and the types to remove on the server; null if nothing was registered
     */
    synchronized Removal remove(String path, Watcher watcher, WatcherType type) {
        List<Removed> removed = new ArrayList<>();
        Set<WatcherType> serverTypes = EnumSet.noneOf(WatcherType.class);
        if (type == WatcherType.CHILDREN || type == WatcherType.ANY) {
            removeGroup(path, watcher, WatcherType.CHILDREN, WatchedEvent.Type.CHILD_WATCH_REMOVED, removed,
                    serverTypes, Kind.CHILD);
        }
        if (type == WatcherType.DATA || type == WatcherType.ANY) {
            removeGroup(path, watcher, WatcherType.DATA, WatchedEvent.Type.DATA_WATCH_REMOVED, removed,
                    serverTypes, Kind.DATA, Kind.EXIST);
        }
        int before = removed.size();
        if (type == WatcherType.PERSISTENT || type == WatcherType.ANY) {
            removeGroup(path, watcher, WatcherType.PERSISTENT, WatchedEvent.Type.PERSISTENT_WATCH_REMOVED, removed,
                    serverTypes, Kind.PERSISTENT);
        }
        if (type == WatcherType.PERSISTENT_RECURSIVE || type == WatcherType.ANY) {
            removeGroup(path, watcher, WatcherType.PERSISTENT_RECURSIVE, WatchedEvent.Type.PERSISTENT_WATCH_REMOVED,
                    removed, serverTypes, Kind.RECURSIVE);
        }
        dropRepeatedEvents(removed, before); // a watcher holding both persistent kinds hears one removal, as in ZooKeeper
        return removed.isEmpty() ? null : new Removal(removed, serverTypes);
    }

    /** Keeps the first of the removal events from {@code from} on that name the same watcher and event. */
    private static void dropRepeatedEvents(List<Removed> removed, int from) {
        Set<Watcher> seen = new java.util.HashSet<>();
        for (int i = from; i < removed.size(); ) {
            if (seen.add(removed.get(i).watcher())) {
                i++;
            } else {
                removed.remove(i);
            }
        }
    }

    private void removeGroup(String path, Watcher watcher, WatcherType group, WatchedEvent.Type eventType,
                             List<Removed> removed, Set<WatcherType> serverTypes, Kind... kinds) {
        Set<Watcher> gone = new LinkedHashSet<>();
        boolean remaining = false;
        for (Kind kind : kinds) {
            Map<String, Set<Watcher>> map = map(kind);
            Set<Watcher> set = map.get(path);
            if (set == null) {
                continue;
            }
            if (watcher == null) {
                gone.addAll(set);
                set.clear();
            } else if (set.remove(watcher)) {
                gone.add(watcher);
            }
            if (set.isEmpty()) {
                map.remove(path);
                if (kind == Kind.PERSISTENT) {
                    persistentWithData.remove(path);
                } else if (kind == Kind.RECURSIVE) {
                    recursiveWithData.remove(path);
                }
            } else {
                remaining = true;
            }
        }
        if (gone.isEmpty()) {
            return;
        }
        WatchedEvent event = new WatchedEvent(eventType, path, -1);
        for (Watcher w : gone) {
            removed.add(new Removed(w, event));
        }
        if (!remaining) {
            serverTypes.add(group);
        }
    }

    /** True if some watcher holds a watch of the group (DATA: data or exist, CHILDREN, PERSISTENT, RECURSIVE). */
    synchronized boolean holds(String path, WatcherType group) {
        return switch (group) {
            case DATA -> map(Kind.DATA).containsKey(path) || map(Kind.EXIST).containsKey(path);
            case CHILDREN -> map(Kind.CHILD).containsKey(path);
            case PERSISTENT -> map(Kind.PERSISTENT).containsKey(path);
            case PERSISTENT_RECURSIVE -> map(Kind.RECURSIVE).containsKey(path);
            case ANY -> holds(path, WatcherType.DATA) || holds(path, WatcherType.CHILDREN)
                    || holds(path, WatcherType.PERSISTENT) || holds(path, WatcherType.PERSISTENT_RECURSIVE);
        };
    }

    synchronized Snapshot snapshot() {
        return new Snapshot(keys(Kind.DATA), keys(Kind.EXIST), keys(Kind.CHILD), keys(Kind.PERSISTENT),
                keys(Kind.RECURSIVE), persistentWithData.toArray(new String[0]),
                recursiveWithData.toArray(new String[0]));
    }

    /** Drops every registration (the session is gone). */
    synchronized void clear() {
        byKind.forEach(Map::clear);
        persistentWithData.clear();
        recursiveWithData.clear();
    }

    /** Every path with at least one registration. */
    synchronized Set<String> paths() {
        Set<String> paths = new TreeSet<>();
        byKind.forEach(m -> paths.addAll(m.keySet()));
        return paths;
    }

    private String[] keys(Kind kind) {
        return map(kind).keySet().toArray(new String[0]);
    }

    private void take(Kind kind, String path, Set<Watcher> into) {
        addAll(map(kind).remove(path), into);
    }

    private static void addAll(Set<Watcher> from, Set<Watcher> into) {
        if (from != null) {
            into.addAll(from);
        }
    }

    @Override
    public synchronized String toString() {
        Map<Kind, Set<String>> view = new LinkedHashMap<>();
        for (Kind k : Kind.values()) {
            view.put(k, map(k).keySet());
        }
        return "WatchRegistry" + view;
    }
}
