package dev.zkr.tree;

import dev.zkr.client.AddWatchMode;
import dev.zkr.client.Stat;
import dev.zkr.client.WatchedEvent;
import dev.zkr.client.WatcherType;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Server-side watches per (session, path) with ZooKeeper's firing rules:
 * <ul>
 *   <li>NODE_CREATED / NODE_DATA_CHANGED fire data watches (getData and exists watches share one table, as in
 *       ZooKeeper), persistent watches on the path and recursive watches on the path or an ancestor;</li>
 *   <li>NODE_DELETED additionally fires child watches on the path;</li>
 *   <li>NODE_CHILDREN_CHANGED fires child watches and persistent (non-recursive) watches on the path only;</li>
 *   <li>one-shot watches are removed when they fire, persistent ones stay (also across deletes);</li>
 *   <li>a session receives each event at most once even if several of its watches match;</li>
 *   <li>a persistent or recursive watch may be set <em>with data</em> (zkr's own protocol): the session's
 *       NODE_CREATED and NODE_DATA_CHANGED deliveries through it are marked {@link WatchDelivery#withData()}, and
 *       the server sends them with the node's data and Stat. The mark stays while the watch does, whatever later
 *       adds of the same watch ask.</li>
 * </ul>
 * Not thread-safe: the server registers, triggers and removes watches inside a round, on one thread at a time, so
 * no change can be applied between a read and the watch it registers (see docs/architecture.md, Threads).
 */
public final class WatchTable {
    private static final int DATA = 1;
    private static final int CHILD = 2;
    private static final int PERSISTENT = 4;
    private static final int RECURSIVE = 8;

    private final Map<String, Set<Long>> data = new HashMap<>();
    private final Map<String, Set<Long>> child = new HashMap<>();
    private final Map<String, Set<Long>> persistent = new HashMap<>();
    private final Map<String, Set<Long>> recursive = new HashMap<>();
    /** The sessions whose persistent (recursive) watch on the path was set with data: a subset of the above. */
    private final Map<String, Set<Long>> persistentWithData = new HashMap<>();
    private final Map<String, Set<Long>> recursiveWithData = new HashMap<>();
    /** Reverse index: session to path to bitmask of watch kinds. */
    private final Map<Long, Map<String, Integer>> bySession = new HashMap<>();
    /** The sessions one trigger fires for, reused across triggers. */
    private final Set<Long> scratch = new LinkedHashSet<>();
    /** Of those, the ones whose watch asked for data, reused across triggers. */
    private final Set<Long> wantData = new java.util.HashSet<>();

    /** One-shot data watch (getData): fires on data change and delete. */
    public void addDataWatch(long sessionId, String path) {
        add(data, DATA, sessionId, path);
    }

    /** One-shot exists watch: fires on create, data change and delete (same table as data watches). */
    public void addExistsWatch(long sessionId, String path) {
        add(data, DATA, sessionId, path);
    }

    /** One-shot child watch (getChildren): fires on child create/delete and on delete of the node. */
    public void addChildWatch(long sessionId, String path) {
        add(child, CHILD, sessionId, path);
    }

    /** Persistent or persistent-recursive watch ({@code addWatch}); stays until removed. */
    public void addPersistentWatch(long sessionId, String path, AddWatchMode mode) {
        if (mode == AddWatchMode.PERSISTENT_RECURSIVE) {
            add(recursive, RECURSIVE, sessionId, path);
        } else {
            add(persistent, PERSISTENT, sessionId, path);
        }
    }

    /** A persistent or recursive watch set with data ({@link WatchTable}); stays until removed. */
    public void addPersistentWatchWithData(long sessionId, String path, AddWatchMode mode) {
        addPersistentWatch(sessionId, path, mode);
        markWithData(mode == AddWatchMode.PERSISTENT_RECURSIVE ? recursiveWithData : persistentWithData, sessionId,
                path);
    }

    private static void markWithData(Map<String, Set<Long>> table, long sessionId, String path) {
        table.computeIfAbsent(path, p -> new LinkedHashSet<>(2)).add(sessionId);
    }

    /** Fires the triggers of one applied txn, in order; returns the deliveries in firing order. */
    public List<WatchDelivery> trigger(List<WatchTrigger> triggers) {
        List<WatchDelivery> out = null;
        Set<Long> sessions = scratch;
        for (WatchTrigger t : triggers) {
            sessions.clear();
            String path = t.path();
            switch (t.type()) {
                case NODE_CREATED, NODE_DATA_CHANGED -> {
                    fireOnce(data, DATA, path, sessions);
                    collect(persistent, path, sessions);
                    collectUp(recursive, path, sessions);
                }
                case NODE_DELETED -> {
                    fireOnce(data, DATA, path, sessions);
                    fireOnce(child, CHILD, path, sessions);
                    collect(persistent, path, sessions);
                    collectUp(recursive, path, sessions);
                }
                case NODE_CHILDREN_CHANGED -> {
                    fireOnce(child, CHILD, path, sessions);
                    collect(persistent, path, sessions);
                }
                default -> {
                }
            }
            if (!sessions.isEmpty()) {
                if (out == null) {
                    out = new ArrayList<>();
                }
                WatchedEvent event = t.event();
                if (t.type() == WatchedEvent.Type.NODE_CREATED || t.type() == WatchedEvent.Type.NODE_DATA_CHANGED) {
                    collect(persistentWithData, path, wantData);
                    collectUp(recursiveWithData, path, wantData);
                }
                for (long s : sessions) {
                    out.add(new WatchDelivery(s, event, t.acl(), wantData.contains(s)));
                }
                sessions.clear();
                wantData.clear();
            }
        }
        return out == null ? List.of() : out;
    }

    /**
     * Removes the session's watches of this type on the path, as ZooKeeper 3.9's {@code DataTree.removeWatch}: DATA
     * data and exists watches, CHILDREN child watches, PERSISTENT persistent watches, PERSISTENT_RECURSIVE
     * persistent-recursive watches, ANY all four. Returns whether anything was removed.
     */
    public boolean remove(long sessionId, String path, WatcherType type) {
        boolean removed = false;
        int kinds = kinds(type);
        if ((kinds & DATA) != 0) {
            removed |= removeOne(data, DATA, sessionId, path);
        }
        if ((kinds & CHILD) != 0) {
            removed |= removeOne(child, CHILD, sessionId, path);
        }
        if ((kinds & PERSISTENT) != 0) {
            removed |= removeOne(persistent, PERSISTENT, sessionId, path);
            unregister(persistentWithData, sessionId, path);
        }
        if ((kinds & RECURSIVE) != 0) {
            removed |= removeOne(recursive, RECURSIVE, sessionId, path);
            unregister(recursiveWithData, sessionId, path);
        }
        return removed;
    }

    /**
     * Whether the session holds a watch of this type on the path (the kinds as {@link #remove}), without removing
     * it: ZooKeeper's {@code checkWatches}.
     */
    public boolean contains(long sessionId, String path, WatcherType type) {
        Map<String, Integer> paths = bySession.get(sessionId);
        Integer held = paths == null ? null : paths.get(path);
        return held != null && (held & kinds(type)) != 0;
    }

    private static int kinds(WatcherType type) {
        return switch (type) {
            case DATA -> DATA;
            case CHILDREN -> CHILD;
            case PERSISTENT -> PERSISTENT;
            case PERSISTENT_RECURSIVE -> RECURSIVE;
            case ANY -> DATA | CHILD | PERSISTENT | RECURSIVE;
        };
    }

    /** Drops every watch of a session (closed or expired). */
    public void removeSession(long sessionId) {
        Map<String, Integer> paths = bySession.remove(sessionId);
        if (paths == null) {
            return;
        }
        paths.forEach((path, kinds) -> {
            if ((kinds & DATA) != 0) {
                unregister(data, sessionId, path);
            }
            if ((kinds & CHILD) != 0) {
                unregister(child, sessionId, path);
            }
            if ((kinds & PERSISTENT) != 0) {
                unregister(persistent, sessionId, path);
                unregister(persistentWithData, sessionId, path);
            }
            if ((kinds & RECURSIVE) != 0) {
                unregister(recursive, sessionId, path);
                unregister(recursiveWithData, sessionId, path);
            }
        });
    }

    /**
     * Re-registers a reconnecting session's watches (ZooKeeper's setWatches) against the tree as of now and returns
     * the events it missed since {@code lastZxid}: a data watch on a missing node gets NODE_DELETED, on a node with
     * mzxid &gt; lastZxid NODE_DATA_CHANGED; an exists watch on an existing node gets NODE_CREATED; a child watch on
     * a missing node gets NODE_DELETED, on a node with pzxid &gt; lastZxid NODE_CHILDREN_CHANGED. Watches that fire
     * are not registered (one-shot); the others are, and persistent ones always are. Call it between applies (inside a
     * round) so no event falls between the check and the registration.
     */
    public List<WatchDelivery> setWatches(long sessionId, long lastZxid, DataTree tree,
                                          Collection<String> dataWatches,
                                          Collection<String> existWatches,
                                          Collection<String> childWatches,
                                          Collection<String> persistentWatches,
                                          Collection<String> recursiveWatches) {
        return setWatches(sessionId, lastZxid, tree, tree::exists, dataWatches, existWatches, childWatches,
                persistentWatches, recursiveWatches, List.of(), List.of());
    }

    /**
     * As above, with the Stats as clients see them ({@code stats}: the tree's, plus what the server shows beside
     * it, such as ZooKeeper's {@link SystemNodes}, which never change and so never fire here).
     */
    public List<WatchDelivery> setWatches(long sessionId, long lastZxid, DataTree tree,
                                          java.util.function.Function<String, Stat> stats,
                                          Collection<String> dataWatches,
                                          Collection<String> existWatches,
                                          Collection<String> childWatches,
                                          Collection<String> persistentWatches,
                                          Collection<String> recursiveWatches,
                                          Collection<String> persistentWithDataWatches,
                                          Collection<String> recursiveWithDataWatches) {
        List<WatchDelivery> missed = new ArrayList<>();
        List<String> keepData = new ArrayList<>();
        List<String> keepChild = new ArrayList<>();
        long now = tree.lastZxid();
        for (String path : dataWatches) {
            Stat st = stats.apply(path);
            if (st == null) {
                missed.add(delivery(sessionId, WatchedEvent.Type.NODE_DELETED, path, now));
            } else if (st.mzxid() > lastZxid) {
                missed.add(delivery(sessionId, WatchedEvent.Type.NODE_DATA_CHANGED, path, st.mzxid()));
            } else {
                keepData.add(path);
            }
        }
        for (String path : existWatches) {
            Stat st = stats.apply(path);
            if (st != null) {
                missed.add(delivery(sessionId, WatchedEvent.Type.NODE_CREATED, path, st.czxid()));
            } else {
                keepData.add(path);
            }
        }
        for (String path : childWatches) {
            Stat st = stats.apply(path);
            if (st == null) {
                missed.add(delivery(sessionId, WatchedEvent.Type.NODE_DELETED, path, now));
            } else if (st.pzxid() > lastZxid) {
                missed.add(delivery(sessionId, WatchedEvent.Type.NODE_CHILDREN_CHANGED, path, st.pzxid()));
            } else {
                keepChild.add(path);
            }
        }
        keepData.forEach(path -> add(data, DATA, sessionId, path));
        keepChild.forEach(path -> add(child, CHILD, sessionId, path));
        persistentWatches.forEach(path -> add(persistent, PERSISTENT, sessionId, path));
        recursiveWatches.forEach(path -> add(recursive, RECURSIVE, sessionId, path));
        persistentWithDataWatches.forEach(path -> addPersistentWatchWithData(sessionId, path, AddWatchMode.PERSISTENT));
        recursiveWithDataWatches.forEach(path -> addPersistentWatchWithData(sessionId, path,
                AddWatchMode.PERSISTENT_RECURSIVE));
        return missed;
    }

    /**
     * A summary for operators (admin endpoint): watches by kind, the number of watched paths, watches per session and
     * the {@code top} most watched paths (most watchers first).
     */
    public record Summary(int total, int data, int child, int persistent, int recursive, int paths,
                          Map<Long, Integer> bySession, List<Map.Entry<String, Integer>> topPaths) {
    }

    /** See {@link Summary}. */
    public Summary summary(int top) {
        Map<String, Integer> perPath = new HashMap<>();
        for (Map<String, Set<Long>> t : List.of(data, child, persistent, recursive)) {
            t.forEach((path, ids) -> perPath.merge(path, ids.size(), Integer::sum));
        }
        Map<Long, Integer> bySessionCount = new java.util.TreeMap<>();
        int total = 0;
        for (Map.Entry<Long, Map<String, Integer>> e : bySession.entrySet()) {
            int n = 0;
            for (int kinds : e.getValue().values()) {
                n += Integer.bitCount(kinds);
            }
            bySessionCount.put(e.getKey(), n);
            total += n;
        }
        List<Map.Entry<String, Integer>> topPaths = perPath.entrySet().stream()
                .sorted(Map.Entry.<String, Integer>comparingByValue().reversed().thenComparing(Map.Entry.comparingByKey()))
                .limit(top).map(e -> Map.entry(e.getKey(), e.getValue())).toList();
        return new Summary(total, count(data), count(child), count(persistent), count(recursive), perPath.size(),
                bySessionCount, topPaths);
    }

    private static int count(Map<String, Set<Long>> table) {
        int n = 0;
        for (Set<Long> ids : table.values()) {
            n += ids.size();
        }
        return n;
    }

    /** Total number of (session, path, kind) watches. */
    public int size() {
        int n = 0;
        for (Map<String, Integer> m : bySession.values()) {
            for (int kinds : m.values()) {
                n += Integer.bitCount(kinds);
            }
        }
        return n;
    }

    private static WatchDelivery delivery(long sessionId, WatchedEvent.Type type, String path, long zxid) {
        return new WatchDelivery(sessionId, new WatchedEvent(type, path, zxid));
    }

    /**
     * Registers a watch. Memory (zk-bench's watches row): the per-path set and the session's map share one path
     * string per path and one boxed session id per session ({@link PathWatchers}, {@link SessionPaths}), so a watch
     * costs a set entry and a map entry, not copies of the request's path and id.
     */
    private void add(Map<String, Set<Long>> table, int kind, long sessionId, String path) {
        SessionPaths mine = (SessionPaths) bySession.computeIfAbsent(sessionId, SessionPaths::new);
        PathWatchers watchers = (PathWatchers) table.computeIfAbsent(path, PathWatchers::new);
        watchers.add(mine.id);
        mine.merge(watchers.path, kind, (a, b) -> a | b);
    }

    /** The sessions watching one path of one table, with the path string the table and the sessions' maps share. */
    private static final class PathWatchers extends LinkedHashSet<Long> {
        final String path;

        PathWatchers(String path) {
            super(2);
            this.path = path;
        }
    }

    /** One session's watched paths (to their kinds), with the boxed session id every set it is in shares. */
    private static final class SessionPaths extends HashMap<String, Integer> {
        final Long id;

        SessionPaths(Long id) {
            this.id = id;
        }
    }

    private boolean removeOne(Map<String, Set<Long>> table, int kind, long sessionId, String path) {
        if (!unregister(table, sessionId, path)) {
            return false;
        }
        clearKind(sessionId, path, kind);
        return true;
    }

    private static boolean unregister(Map<String, Set<Long>> table, long sessionId, String path) {
        Set<Long> sessions = table.get(path);
        if (sessions == null || !sessions.remove(sessionId)) {
            return false;
        }
        if (sessions.isEmpty()) {
            table.remove(path);
        }
        return true;
    }

    private void clearKind(long sessionId, String path, int kind) {
        Map<String, Integer> paths = bySession.get(sessionId);
        if (paths == null) {
            return;
        }
        Integer kinds = paths.get(path);
        if (kinds != null) {
            int left = kinds & ~kind;
            if (left == 0) {
                paths.remove(path);
                if (paths.isEmpty()) {
                    bySession.remove(sessionId);
                }
            } else {
                paths.put(path, left);
            }
        }
    }

    private void fireOnce(Map<String, Set<Long>> table, int kind, String path, Set<Long> into) {
        Set<Long> sessions = table.remove(path);
        if (sessions != null) {
            for (Iterator<Long> it = sessions.iterator(); it.hasNext(); ) {
                long s = it.next();
                into.add(s);
                clearKind(s, path, kind);
            }
        }
    }

    private static void collect(Map<String, Set<Long>> table, String path, Set<Long> into) {
        Set<Long> sessions = table.get(path);
        if (sessions != null) {
            into.addAll(sessions);
        }
    }

    /** The sessions of {@code table} (a recursive one) on the path or any ancestor. */
    private static void collectUp(Map<String, Set<Long>> table, String path, Set<Long> into) {
        if (table.isEmpty()) {
            return;
        }
        String p = path;
        while (p != null) {
            collect(table, p, into);
            p = "/".equals(p) ? null : DataTree.parentOf(p);
        }
    }
}
