package dev.zkr.tree;

import java.util.ArrayList;
import java.util.List;

/**
 * The children of a node: an open-addressing hash set of child {@link Node}s keyed by their name, which is read
 * from the child's path in place. Costs one array slot per child and no per-child objects. Also holds the owner's
 * child-related stat fields. Not thread-safe: guarded by the parent node's monitor.
 */
final class ChildSet {
    /** The owning node's cversion (number of child creations). */
    int cversion;
    /** The owning node's pzxid. */
    long pzxid;
    private Node[] slots = new Node[4];
    private int size;

    ChildSet(long pzxid) {
        this.pzxid = pzxid;
    }

    int size() {
        return size;
    }

    /** Adds the child, replacing a child with the same name; true if the set grew. */
    boolean add(Node child) {
        int i = find(child.path);
        if (slots[i] != null) {
            slots[i] = child;
            return false;
        }
        if ((size + 1) * 4 > slots.length * 3) {
            grow();
            i = find(child.path);
        }
        slots[i] = child;
        size++;
        return true;
    }

    /** Removes the child with the name of this path; true if it was there. */
    boolean remove(String childPath) {
        int i = find(childPath);
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
            int k = hash(n.path) & mask;
            boolean stays = i <= j ? (i < k && k <= j) : (i < k || k <= j);
            if (!stays) {
                slots[i] = n;
                slots[j] = null;
                i = j;
            }
        }
    }

    boolean contains(String childPath) {
        return slots[find(childPath)] != null;
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
    private int find(String path) {
        int mask = slots.length - 1;
        int i = hash(path) & mask;
        while (true) {
            Node n = slots[i];
            if (n == null || sameName(n.path, path)) {
                return i;
            }
            i = (i + 1) & mask;
        }
    }

    private void grow() {
        Node[] old = slots;
        slots = new Node[old.length * 2];
        for (Node n : old) {
            if (n != null) {
                slots[find(n.path)] = n;
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

    static boolean sameName(String a, String b) {
        int sa = a.lastIndexOf('/') + 1;
        int sb = b.lastIndexOf('/') + 1;
        int len = a.length() - sa;
        return len == b.length() - sb && a.regionMatches(sa, b, sb, len);
    }
}
