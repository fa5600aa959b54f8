package dev.zkr.recipes;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.zkr.client.NodeData;
import dev.zkr.client.Stat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * The tree cache's copy, as pure logic (no threads, no I/O): the structure (every node's Stat and child names,
 * always kept) and node data in a Caffeine cache bounded by a byte weigher (evicted data is re-read by the caller).
 * It is changed by <em>facts</em>, each one answer of the server — "this node is present with this data", "this
 * node is absent", "this node's children are exactly these" — applied in the order the server answered them, and
 * returns the events the change makes. Not thread-safe: the owner serialises calls.
 */
final class TreeState {

    /** One node's structure: its Stat and its children's names (a set only once it has children: most are leaves). */
    private static final class Node {
        Stat stat;
        private TreeSet<String> children;

        Node(Stat stat) {
            this.stat = stat;
        }

        void add(String child) {
            if (children == null) {
                children = new TreeSet<>();
            }
            children.add(child);
        }

        void remove(String child) {
            if (children != null && children.remove(child) && children.isEmpty()) {
                children = null;
            }
        }

        List<String> children() {
            return children == null ? List.of() : List.copyOf(children);
        }
    }

    /** Data held for one incarnation and version of a node. */
    private record Held(long czxid, long mzxid, byte[] data) {
    }

    private final String root;
    private final Map<String, Node> nodes = new HashMap<>();
    private final Cache<String, Held> data;

    TreeState(String root, long maxDataBytes) {
        this.root = root;
        this.data = Caffeine.newBuilder()
                .maximumWeight(maxDataBytes)
                .<String, Held>weigher((path, held) -> held.data().length)
                .executor(Runnable::run) // evict on the caller's thread: no background work, no pool
                .build();
    }

    /** True if path is the root or below it. */
    boolean covers(String path) {
        return path.equals(root) || path.startsWith(root.equals("/") ? "/" : root + "/");
    }

    /** Fact: the node is present with this data and Stat. */
    List<CacheEvent> present(String path, NodeData now) {
        List<CacheEvent> out = new ArrayList<>();
        Node node = nodes.get(path);
        if (node != null) {
            if (now.stat().czxid() < node.stat.czxid() || now.stat().czxid() == node.stat.czxid()
                    && now.stat().mzxid() < node.stat.mzxid()) {
                return out; // older than what we have: never go back
            }
            if (now.stat().czxid() != node.stat.czxid()) {
                removeSubtree(path, out); // deleted and created again in between
                node = null;
            }
        }
        if (node == null) {
            Node parent = path.equals(root) ? null : nodes.get(parentOf(path));
            if (!path.equals(root) && parent == null) {
                return out; // its parent is not known yet: the answer that brings the parent reads it again
            }
            nodes.put(path, new Node(now.stat()));
            if (parent != null) {
                parent.add(nameOf(path));
            }
            hold(path, now);
            out.add(new CacheEvent(CacheEvent.Type.CREATED, path, Optional.of(now)));
            return out;
        }
        boolean changed = now.stat().mzxid() != node.stat.mzxid();
        node.stat = now.stat(); // the child fields may move on without a data change: no event for that
        hold(path, now);
        if (changed) {
            out.add(new CacheEvent(CacheEvent.Type.CHANGED, path, Optional.of(now)));
        }
        return out;
    }

    /** Fact: the node does not exist (nor, then, anything below it). */
    List<CacheEvent> absent(String path) {
        List<CacheEvent> out = new ArrayList<>();
        if (nodes.containsKey(path)) {
            removeSubtree(path, out);
        }
        return out;
    }

    /** Fact: the node's children are exactly these names; the ones we hold beside them are gone. */
    List<CacheEvent> children(String path, List<String> names) {
        List<CacheEvent> out = new ArrayList<>();
        Node node = nodes.get(path);
        if (node == null) {
            return out;
        }
        Set<String> now = Set.copyOf(names);
        for (String child : node.children()) {
            if (!now.contains(child)) {
                removeSubtree(childPath(path, child), out);
            }
        }
        return out;
    }

    /** Removes the node and everything below it, deepest first, with a DELETED event each. */
    private void removeSubtree(String path, List<CacheEvent> out) {
        Node node = nodes.get(path);
        for (String child : node.children()) {
            removeSubtree(childPath(path, child), out);
        }
        nodes.remove(path);
        if (!path.equals(root)) {
            Node parent = nodes.get(parentOf(path));
            if (parent != null) {
                parent.remove(nameOf(path));
            }
        }
        Optional<NodeData> last = heldData(path, node.stat).map(d -> new NodeData(d, node.stat));
        data.invalidate(path);
        out.add(new CacheEvent(CacheEvent.Type.DELETED, path,
                Optional.of(last.orElse(new NodeData(new byte[0], node.stat)))));
    }

    private void hold(String path, NodeData now) {
        data.put(path, new Held(now.stat().czxid(), now.stat().mzxid(), now.data()));
    }

    /** The data held for this version of the node, unless evicted. */
    private Optional<byte[]> heldData(String path, Stat stat) {
        Held held = data.getIfPresent(path);
        return held != null && held.czxid() == stat.czxid() && held.mzxid() == stat.mzxid()
                ? Optional.of(held.data()) : Optional.empty();
    }

    /** The Stat of a node we hold. */
    Optional<Stat> stat(String path) {
        Node node = nodes.get(path);
        return node == null ? Optional.empty() : Optional.of(node.stat);
    }

    /** The node with its data, if we hold both; empty if the node is unknown or its data was evicted. */
    Optional<NodeData> local(String path) {
        Node node = nodes.get(path);
        return node == null ? Optional.empty() : heldData(path, node.stat).map(d -> new NodeData(d, node.stat));
    }

    /**
     * Data re-read after an eviction: held again if it is the version we know (a newer one is left to the event
     * that reports it).
     */
    void reread(String path, NodeData read) {
        Node node = nodes.get(path);
        if (node != null && node.stat.czxid() == read.stat().czxid() && node.stat.mzxid() == read.stat().mzxid()) {
            hold(path, new NodeData(read.data(), node.stat));
        }
    }

    /** Child names of a node we hold, sorted; empty if unknown. */
    List<String> childrenOf(String path) {
        Node node = nodes.get(path);
        return node == null ? List.of() : node.children();
    }

    /** Paths of every node held. */
    Set<String> paths() {
        return Set.copyOf(nodes.keySet());
    }

    int size() {
        return nodes.size();
    }

    /** Bytes of node data held now. */
    long dataBytes() {
        data.cleanUp();
        return data.policy().eviction().orElseThrow().weightedSize().orElse(0L);
    }

    void clear() {
        nodes.clear();
        data.invalidateAll();
    }

    static String parentOf(String path) {
        int slash = path.lastIndexOf('/');
        return slash == 0 ? "/" : path.substring(0, slash);
    }

    private static String nameOf(String path) {
        return path.substring(path.lastIndexOf('/') + 1);
    }

    static String childPath(String path, String child) {
        return path.equals("/") ? "/" + child : path + "/" + child;
    }
}
