package dev.zkr.tree;

import java.util.ArrayList;
import java.util.List;

/**
 * The children of a node: an open-addressing hash set of child {@link Node}s keyed by their name, which is read
 * from the child's path in place. Costs one array slot plus one int (the name's hash, so a probe touches a child
 * only when the hashes match: no cache misses on neighbours in big sets) per slot and no per-child objects. Also
 * holds the owner's child-related stat fields. Every path given to it is a child path of the owner, so two paths
 * have the same name exactly when they are equal. Not thread-safe: guarded by the parent node's monitor.
 */
final class ChildSet {
    /** The owning node's cversion (number of child creations). */
    int cversion;
    /** The owning node's pzxid. */
    long pzxid;
    private Node[] slots = new Node[4];
    /** The hash of the child in the same slot (meaningless where the slot is empty). */
    private int[] hashes = new int[4];
    private int size;

    ChildSet(long pzxid) {
        this.pzxid = pzxid;
    }

    int size() {
        return size;
    }

    /** Adds the child, replacing a child with the same name; true if the set grew. */
    boolean add(Node child) {
        int h = hash(child.path);
        int i = find(child.path, h);
        if (slots[i] != null) {
            slots[i] = child;
            return false;
        }
        if ((size + 1) * 4 > slots.length * 3) {
            grow();
            i = find(child.path, h);
        }
        slots[i] = child;
        hashes[i] = h;
        size++;
        return true;
    }

    /** Removes the child with the name of this path; true if it was there. */
    boolean remove(String childPath) {
        int i = find(childPath, hash(childPath));
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
            int k = hashes[j] & mask;
            boolean stays = i <= j ? (i < k && k <= j) : (i < k || k <= j);
            if (!stays) {
                slots[i] = n;
                hashes[i] = hashes[j];
                slots[j] = null;
                i = j;
            }
        }
    }

    boolean contains(String childPath) {
        return slots[find(childPath, hash(childPath))] != null;
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

    List<String> names() {
        List<String> names = new ArrayList<>(size);
        for (Node n : slots) {
            if (n != null) {
                names.add(n.path.substring(n.path.lastIndexOf('/') + 1));
            }
        }
        return names;
    }

    /** Index of the slot holding this name, or of the empty slot where it would go. */
    private int find(String path, int hash) {
        int mask = slots.length - 1;
        int i = hash & mask;
        while (true) {
            Node n = slots[i];
            if (n == null || (hashes[i] == hash && n.path.equals(path))) {
                return i;
            }
            i = (i + 1) & mask;
        }
    }

    private void grow() {
        Node[] old = slots;
        int[] oldHashes = hashes;
        slots = new Node[old.length * 2];
        hashes = new int[old.length * 2];
        int mask = slots.length - 1;
        for (int j = 0; j < old.length; j++) {
            if (old[j] != null) {
                int i = oldHashes[j] & mask;
                while (slots[i] != null) {
                    i = (i + 1) & mask;
                }
                slots[i] = old[j];
                hashes[i] = oldHashes[j];
            }
        }
    }

    static int hash(String path) {
        int h = 0;
        for (int i = path.lastIndexOf('/') + 1, n = path.length(); i < n; i++) {
            h = 31 * h + path.charAt(i);
        }
        h *= 0x9E3779B9;
        return h ^ (h >>> 16);
    }
}
