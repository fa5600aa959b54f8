package dev.zkr.tree;

import java.util.ArrayList;
import java.util.List;

/**
 * The children of a node: an open-addressing hash set of child {@link Node}s keyed by their name, which is read from
 * the child's packed bytes in place. Costs one array slot per slot (a quarter to three quarters full) and no
 * per-child objects; a probe compares names, and hashes are recomputed from the names when the set grows or closes a
 * gap. The slot order (what {@link #names()} lists) depends only on the names' hashes and the sequence of adds and
 * removes. Also holds the owner's child-related stat fields and, while the owner has this set, the owner's packed
 * name and data ({@link Node}). Not thread-safe: guarded by the owner's monitor.
 */
final class ChildSet {
    /** The owning node's cversion (number of child creations). */
    int cversion;
    /** The owning node's pzxid. */
    long pzxid;
    /** The owning node's packed name and data ({@link NodeBytes}). */
    byte[] packed;
    private Node[] slots = new Node[4];
    private int size;

    ChildSet(long pzxid, byte[] packed) {
        this.pzxid = pzxid;
        this.packed = packed;
    }

    int size() {
        return size;
    }

    /** Adds the child, replacing a child with the same name; true if the set grew. */
    boolean add(Node child) {
        byte[] name = child.packed();
        int h = NodeBytes.nameHash(name);
        String key = NodeBytes.name(name);
        int i = find(key, 0, key.length(), h);
        if (slots[i] != null) {
            slots[i] = child;
            return false;
        }
        if ((size + 1) * 4 > slots.length * 3) {
            grow();
            i = find(key, 0, key.length(), h);
        }
        slots[i] = child;
        size++;
        return true;
    }

    /** The child named {@code path[from, to)}, or null. */
    Node get(String path, int from, int to) {
        return slots[find(path, from, to, NodeBytes.hash(path, from, to))];
    }

    /** Removes the child named {@code path[from, to)}; true if it was there. */
    boolean remove(String path, int from, int to) {
        int i = find(path, from, to, NodeBytes.hash(path, from, to));
        if (slots[i] == null) {
            return false;
        }
        int mask = slots.length - 1;
        slots[i] = null;
        size--;
        int j = i;
        while (true) {
            j = (j + 1) & mask;
            Node n = slots[j];
            if (n == null) {
                return true;
            }
            int k = NodeBytes.nameHash(n.packed()) & mask;
            boolean stays = i <= j ? (i < k && k <= j) : (i < k || k <= j);
            if (!stays) {
                slots[i] = n;
                slots[j] = null;
                i = j;
            }
        }
    }

    /** The child nodes (a copy, in slot order). */
    List<Node> nodes() {
        List<Node> nodes = new ArrayList<>(size);
        for (Node n : slots) {
            if (n != null) {
                nodes.add(n);
            }
        }
        return nodes;
    }

    /** The children's names, in slot order. */
    List<String> names() {
        List<String> names = new ArrayList<>(size);
        for (Node n : slots) {
            if (n != null) {
                names.add(NodeBytes.name(n.packed()));
            }
        }
        return names;
    }

    /** Index of the slot holding the name {@code path[from, to)}, or of the empty slot where it would go. */
    private int find(String path, int from, int to, int hash) {
        int mask = slots.length - 1;
        int i = hash & mask;
        while (true) {
            Node n = slots[i];
            if (n == null || NodeBytes.nameEquals(n.packed(), path, from, to)) {
                return i;
            }
            i = (i + 1) & mask;
        }
    }

    private void grow() {
        Node[] old = slots;
        slots = new Node[old.length * 2];
        int mask = slots.length - 1;
        for (Node n : old) {
            if (n != null) {
                int i = NodeBytes.nameHash(n.packed()) & mask;
                while (slots[i] != null) {
                    i = (i + 1) & mask;
                }
                slots[i] = n;
            }
        }
    }
}
