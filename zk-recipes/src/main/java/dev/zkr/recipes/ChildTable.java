package dev.zkr.recipes;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * One tree-cache node's children, found by name: a hash table of the child {@link TreeNode}s themselves, chained
 * through {@link TreeNode#next}, so a name is stored once (in the child) and a child costs about two references
 * (its bucket share and its chain link) instead of a map entry. A lookup takes the name as a region of a path, so
 * walking a path allocates nothing. Adds and removes take constant time whatever order the server lists children
 * in; names are sorted only when asked for. Not thread-safe.
 */
final class ChildTable {

    private static final int FIRST_BUCKETS = 4;
    private static final Comparator<TreeNode> BY_NAME = Comparator.comparing(n -> n.name);

    private TreeNode[] buckets = new TreeNode[FIRST_BUCKETS]; // a power of two, at least size (load factor <= 1)
    private int size;

    /** The child named by {@code path}'s characters {@code start} (inclusive) to {@code end}, or null. */
    TreeNode get(String path, int start, int end) {
        int length = end - start;
        for (TreeNode c = buckets[index(hash(path, start, end), buckets.length)]; c != null; c = c.next) {
            if (c.name.length() == length && c.name.regionMatches(0, path, start, length)) {
                return c;
            }
        }
        return null;
    }

    /** Adds a child whose name is not in the table. */
    void add(TreeNode child) {
        if (size == buckets.length) {
            rehash(buckets.length * 2);
        }
        link(child, buckets);
        size++;
    }

    /** Removes this child node (the very object); false if it is not in the table. */
    boolean remove(TreeNode child) {
        int i = index(child.name.hashCode(), buckets.length);
        TreeNode previous = null;
        for (TreeNode c = buckets[i]; c != null; previous = c, c = c.next) {
            if (c == child) {
                if (previous == null) {
                    buckets[i] = c.next;
                } else {
                    previous.next = c.next;
                }
                c.next = null;
                size--;
                if (buckets.length > FIRST_BUCKETS && size < buckets.length / 8) {
                    rehash(buckets.length / 2); // a parent that lost most of its children gives the slots back
                }
                return true;
            }
        }
        return false;
    }

    boolean isEmpty() {
        return size == 0;
    }

    /** The children sorted by name (the order of {@link String#compareTo}). */
    List<TreeNode> sorted() {
        List<TreeNode> out = new ArrayList<>(size);
        for (TreeNode head : buckets) {
            for (TreeNode c = head; c != null; c = c.next) {
                out.add(c);
            }
        }
        out.sort(BY_NAME);
        return out;
    }

    private void rehash(int length) {
        TreeNode[] moved = new TreeNode[length];
        for (TreeNode head : buckets) {
            for (TreeNode c = head; c != null; ) {
                TreeNode following = c.next;
                link(c, moved);
                c = following;
            }
        }
        buckets = moved;
    }

    private static void link(TreeNode child, TreeNode[] table) {
        int i = index(child.name.hashCode(), table.length);
        child.next = table[i];
        table[i] = child;
    }

    /** {@link String#hashCode()} of the region, computed in place (the same formula over the same chars). */
    static int hash(String path, int start, int end) {
        int h = 0;
        for (int i = start; i < end; i++) {
            h = 31 * h + path.charAt(i);
        }
        return h;
    }

    private static int index(int hash, int length) {
        return (hash ^ (hash >>> 16)) & (length - 1); // high bits too: short names differ mostly in the low ones
    }
}
