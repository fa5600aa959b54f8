package dev.zkr.recipes;

import dev.zkr.client.Children;
import dev.zkr.client.NodeData;
import dev.zkr.client.Stat;
import dev.zkr.client.WatchedEvent;
import dev.zkr.client.Watcher;
import dev.zkr.client.WatcherType;
import dev.zkr.client.ZkClient;
import dev.zkr.client.ZkException;
import dev.zkr.client.ZkPaths;
import dev.zkr.recipes.internal.Cleanup;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.BooleanSupplier;

/**
 * A {@link GroupMembership}'s live view of the group: the member nodes under the group path with their data, kept
 * current by a child watch on the path and a data watch on each member node, and the differences reported to the
 * listeners (joined, left, changed). Every method but the readers runs on the group's serial executor, one at a
 * time; watches trigger work there. A member node made again under the same name (a new czxid) is reported as a
 * leave and a join.
 */
final class GroupView {

    /** A member as last read: its data and the creation zxid of its node. */
    private record Entry(Member member, long czxid) {
    }

    private final ZkClient client;
    private final String path;
    private final Executor serial;
    private final Listeners<GroupListener> listeners;
    private final BooleanSupplier running;
    private final Watcher childWatcher = e -> schedule(this::refresh);
    private final Watcher existsWatcher = e -> schedule(this::refresh);
    private final Watcher dataWatcher = this::dataEvent;
    /** Members whose data watch is set (serial executor only). */
    private final Set<String> armed = new HashSet<>();
    private volatile Map<String, Entry> view = Map.of();

    GroupView(ZkClient client, String path, Executor serial, Listeners<GroupListener> listeners,
              BooleanSupplier running) {
        this.client = client;
        this.path = path;
        this.serial = serial;
        this.listeners = listeners;
        this.running = running;
    }

    private void schedule(Runnable task) {
        if (running.getAsBoolean()) {
            serial.execute(task);
        }
    }

    private void dataEvent(WatchedEvent e) {
        String at = e.path();
        if (at == null || ZkPaths.parent(at) == null || !ZkPaths.parent(at).equals(path)) {
            schedule(this::refresh);
            return;
        }
        String name = ZkPaths.name(at);
        schedule(() -> {
            armed.remove(name); // a one-shot watch: it fired
            reread(name);
        });
    }

    /** After a new session: the old session's watches are gone, every member's data is read (and watched) again. */
    void refreshAll() {
        armed.clear();
        refresh();
    }

    /**
     * Re-reads the children (re-arming the child watch), reads the members it does not watch yet (new ones, ones
     * whose watch fired), and reports the differences.
     */
    void refresh() {
        if (!running.getAsBoolean()) {
            return;
        }
        List<String> names;
        try {
            Children children = Cleanup.watchedRead(client, client.getChildrenAsync(path, childWatcher), path,
                    childWatcher, WatcherType.CHILDREN);
            names = children.names();
        } catch (ZkException.NoNode e) {
            try {
                Stat stat = Cleanup.watchedRead(client, client.existsAsync(path, existsWatcher), path,
                        existsWatcher, WatcherType.DATA);
                if (stat != null) {
                    Cleanup.removeWatchQuietly(client, path, existsWatcher, WatcherType.DATA);
                    schedule(this::refresh);
                    return;
                }
            } catch (ZkException other) {
                return;
            }
            names = List.of();
        } catch (ZkException.ConnectionLoss | ZkException.OperationTimeout | ZkException.SessionExpired e) {
            return; // refreshed again on RECONNECTED / CONNECTED
        } catch (ZkException.Closed e) {
            return;
        }
        Map<String, Entry> old = view;
        Map<String, Entry> next = new TreeMap<>();
        List<Runnable> joins = new ArrayList<>();
        for (String name : names) {
            Entry before = old.get(name);
            Entry now = before != null && armed.contains(name) ? before : read(name, before);
            if (now != null) { // null: gone meanwhile (reported as left below if it was in the view)
                next.put(name, now);
                joins.addAll(differences(before, now));
            }
        }
        List<Runnable> events = new ArrayList<>();
        for (Map.Entry<String, Entry> e : old.entrySet()) {
            if (!next.containsKey(e.getKey())) {
                Member m = e.getValue().member();
                events.add(() -> listeners.fire(l -> l.memberLeft(m)));
                armed.remove(e.getKey()); // its node was deleted: the data watch fired (or is about to)
            }
        }
        events.addAll(joins);
        view = Collections.unmodifiableMap(next);
        events.forEach(Runnable::run);
    }

    /** One member's data changed (or its node went): read it again and report the difference. */
    private void reread(String name) {
        if (!running.getAsBoolean()) {
            return;
        }
        Entry before = view.get(name);
        if (before == null) {
            return; // not (or no longer) in the view: the child watch reports it
        }
        Entry now = read(name, before);
        if (now == null) {
            return; // gone (or unreadable now): the child watch, or the next refresh, reports it
        }
        Map<String, Entry> next = new TreeMap<>(view);
        next.put(name, now);
        view = Collections.unmodifiableMap(next);
        differences(before, now).forEach(Runnable::run);
    }

    /**
     * Reads a member with the data watch; null if its node is gone. If it cannot be read now, its entry stays as it
     * was (null for a new member), unwatched, and is read again by the next refresh (the connection event's).
     */
    private Entry read(String name, Entry before) {
        String at = ZkPaths.join(path, name);
        try {
            NodeData d = Cleanup.watchedRead(client, client.getDataAsync(at, dataWatcher), at, dataWatcher,
                    WatcherType.DATA);
            armed.add(name);
            return new Entry(new Member(name, d.data()), d.stat().czxid());
        } catch (ZkException.NoNode gone) {
            return null;
        } catch (ZkException.ConnectionLoss | ZkException.OperationTimeout | ZkException.SessionExpired
                 | ZkException.Closed e) {
            return before; // kept as it was; read again on RECONNECTED / CONNECTED
        } catch (ZkException e) {
            return before; // e.g. no READ permission on that member: read again at the next refresh, not in a loop
        }
    }

    private List<Runnable> differences(Entry before, Entry now) {
        Member m = now.member();
        if (before == null) {
            return List.of(() -> listeners.fire(l -> l.memberJoined(m)));
        }
        if (before.czxid() != now.czxid()) {
            Member old = before.member();
            return List.of(() -> listeners.fire(l -> l.memberLeft(old)),
                    () -> listeners.fire(l -> l.memberJoined(m)));
        }
        if (!Arrays.equals(before.member().data(), m.data())) {
            return List.of(() -> listeners.fire(l -> l.memberChanged(m)));
        }
        return List.of();
    }

    /** The members, sorted by id. */
    List<Member> members() {
        return view.values().stream().map(Entry::member).toList();
    }

    /** The member ids, sorted. */
    List<String> ids() {
        return List.copyOf(view.keySet());
    }

    /** Removes every watch of the view (runs on the serial executor, after the group stopped running). */
    void close() {
        List<CompletableFuture<Void>> removals = new ArrayList<>();
        removals.add(removal(path, childWatcher, WatcherType.CHILDREN));
        removals.add(removal(path, existsWatcher, WatcherType.DATA));
        for (String name : armed) {
            removals.add(removal(ZkPaths.join(path, name), dataWatcher, WatcherType.DATA));
        }
        armed.clear();
        Cleanup.awaitQuietly(client, CompletableFuture.allOf(removals.toArray(CompletableFuture[]::new)));
    }

    private CompletableFuture<Void> removal(String at, Watcher watcher, WatcherType type) {
        try {
            return client.removeWatchesAsync(at, watcher, type, true).exceptionally(e -> null);
        } catch (RuntimeException e) {
            return CompletableFuture.completedFuture(null);
        }
    }
}
