package dev.zkr.recipes;

import dev.zkr.client.NodeData;
import dev.zkr.client.Stat;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The tree cache's copy, as pure logic (no threads, no I/O): the structure (every node's Stat and children, always
 * kept) and node data ({@link HeldData}: in the nodes, or bounded by a byte weigher, evicted data being re-read by
 * the caller). It is changed by <em>facts</em>, each one answer of the server — "this node is present with this
 * data", "this node is absent", "this node's children are exactly these" — applied in the order the server answered
 * them, and returns the events the change makes. Not thread-safe: the owner serialises calls.
 * <p>
 * The copy is a tree of {@link TreeNode}s holding names, not paths: a path is found by walking its names from the
 * root (no map from paths, so no path string and no map entry per node: a copy may hold millions of nodes, and
 * these were about a fifth of its heap).
 */
final class TreeState {

    private final String root;
    private final String below;  // what a path below the root starts with: the root and a slash ("/" for "/")
    private final int firstName; // where a path's first name below the root starts
    private final HeldData data;
    private TreeNode top;        // the root's node; null while the copy does not hold it
    private int size;

    TreeState(String root, long maxDataBytes) {
        this.root = root;
        this.below = root.equals("/") ? "/" : root + "/";
        this.firstName = root.equals("/") ? 1 : root.length() + 1;
        this.data = HeldData.upTo(maxDataBytes);
    }

    /** True if path is the root or below it. */
    boolean covers(String path) {
        return path.equals(root) || path.startsWith(below);
    }

    /** Fact: the node is present with this data and Stat. */
    List<CacheEvent> present(String path, NodeData now) {
        List<CacheEvent> out = new ArrayList<>();
        if (!covers(path)) {
            return out;
        }
        Stat stat = now.stat();
        TreeNode node = find(path);
        if (node != null) {
            if (stat.czxid() < node.czxid() || stat.czxid() == node.czxid() && stat.mzxid() < node.mzxid()) {
                return out; // older than what we have: never go back
            }
            if (stat.czxid() != node.czxid()) {
                removeSubtree(path, node, out); // deleted and created again in between
                node = null;
            }
        }
        if (node == null) {
            TreeNode parent = path.equals(root) ? null : find(path, parentEnd(path));
            if (!path.equals(root) && parent == null) {
                return out; // its parent is not known yet: the answer that brings the parent reads it again
            }
            node = new TreeNode(nameOf(path), stat);
            if (parent == null) {
                top = node;
            } else {
                parent.addChild(node);
            }
            size++;
            data.put(node, now.data());
            out.add(new CacheEvent(CacheEvent.Type.CREATED, path, Optional.of(now)));
            return out;
        }
        boolean changed = stat.mzxid() != node.mzxid();
        node.setStat(stat); // the child fields may move on without a data change: no event for that
        data.put(node, now.data());
        if (changed) {
            out.add(new CacheEvent(CacheEvent.Type.CHANGED, path, Optional.of(now)));
        }
        return out;
    }

    /** Fact: the node does not exist (nor, then, anything below it). */
    List<CacheEvent> absent(String path) {
        List<CacheEvent> out = new ArrayList<>();
        TreeNode node = find(path);
        if (node != null) {
            removeSubtree(path, node, out);
        }
        return out;
    }

    /** Fact: the node's children are exactly these names; the ones we hold beside them are gone. */
    List<CacheEvent> children(String path, List<String> names) {
        List<CacheEvent> out = new ArrayList<>();
        TreeNode node = find(path);
        if (node == null) {
            return out;
        }
        Set<String> now = Set.copyOf(names);
        for (TreeNode child : node.children()) {
            if (!now.contains(child.name)) {
                removeSubtree(childPath(path, child.name), child, out);
            }
        }
        return out;
    }

    /** Removes the node at path and everything below it, deepest first, with a DELETED event each. */
    private void removeSubtree(String path, TreeNode node, List<CacheEvent> out) {
        for (TreeNode child : node.children()) {
            removeSubtree(childPath(path, child.name), child, out);
        }
        if (node == top) {
            top = null;
        } else {
            find(path, parentEnd(path)).removeChild(node);
        }
        size--;
        byte[] last = data.get(node);
        data.remove(node);
        out.add(new CacheEvent(CacheEvent.Type.DELETED, path,
                Optional.of(new NodeData(last == null ? new byte[0] : last, node.stat()))));
    }

    /** The Stat of a node we hold. */
    Optional<Stat> stat(String path) {
        TreeNode node = find(path);
        return node == null ? Optional.empty() : Optional.of(node.stat());
    }

    /** The node with its data, if we hold both; empty if the node is unknown or its data was evicted. */
    Optional<NodeData> local(String path) {
        TreeNode node = find(path);
        byte[] held = node == null ? null : data.get(node);
        return held == null ? Optional.empty() : Optional.of(new NodeData(held, node.stat()));
    }

    /**
     * Data re-read after an eviction: held again if it is the version we know (a newer one is left to the event
     * that reports it).
     */
    void reread(String path, NodeData read) {
        TreeNode node = find(path);
        if (node != null && node.czxid() == read.stat().czxid() && node.mzxid() == read.stat().mzxid()) {
            data.put(node, read.data());
        }
    }

    /** Child names of a node we hold, sorted; empty if unknown. */
    List<String> childrenOf(String path) {
        TreeNode node = find(path);
        return node == null ? List.of() : node.children().stream().map(c -> c.name).toList();
    }

    int size() {
        return size;
    }

    /** Bytes of node data held now. */
    long dataBytes() {
        return data.bytes();
    }

    void clear() {
        top = null;
        size = 0;
        data.clear();
    }

    /** The node we hold at path, or null. */
    private TreeNode find(String path) {
        return covers(path) ? find(path, path.length()) : null;
    }

    /**
     * The node at {@code path}'s first {@code end} characters (the root or below it), or null: the walk from the
     * root node, one name at a time, reading the names in place.
     */
    private TreeNode find(String path, int end) {
        if (end > 1 && path.charAt(end - 1) == '/') {
            return null; // "/r/": no node has an empty name
        }
        TreeNode node = top;
        for (int start = firstName; node != null && start < end; ) {
            int slash = path.indexOf('/', start);
            int nameEnd = slash < 0 || slash > end ? end : slash;
            node = node.child(path, start, nameEnd);
            start = nameEnd + 1;
        }
        return node;
    }

    /** The length of path's parent ("/a" → "/": 1, "/a/b" → "/a": 2). */
    private static int parentEnd(String path) {
        return Math.max(1, path.lastIndexOf('/'));
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
