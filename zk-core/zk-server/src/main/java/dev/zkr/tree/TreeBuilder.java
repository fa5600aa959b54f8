package dev.zkr.tree;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Links nodes that arrive with their paths, in any order, into a tree (snapshot reads and whole-tree images). Nodes
 * wait, grouped by parent path, until their parent arrives; a snapshot lists children before their parent, so only
 * the children of the nodes on the current branch wait and no map of every path is built. What is left at the end is
 * linked by looking its parent up in the tree; nodes whose parent never came are orphans (a fuzzy snapshot holds
 * children of a node deleted while it was written; replay deletes them). Single-threaded; not reusable.
 */
final class TreeBuilder {
    private final Map<String, List<Node>> waiting = new HashMap<>();
    private Node root;
    private int count;
    private String duplicate;
    private boolean rootAdded;

    /** Starts from this root (the empty tree's), replaced if a node at {@code /} arrives. */
    TreeBuilder(Node root) {
        this.root = root;
        this.count = 1;
    }

    /** Adds the node at this path (a valid absolute path). */
    void add(String path, Node node) {
        List<Node> kids = waiting.remove(path);
        if (kids != null) {
            link(path, node, kids);
        }
        if ("/".equals(path)) {
            if (rootAdded && duplicate == null) {
                duplicate = path;
            }
            rootAdded = true;
            root = node;
        } else {
            waiting.computeIfAbsent(DataTree.parentOf(path), k -> new ArrayList<>()).add(node);
            count++;
        }
    }

    /** The root; call {@link #finish} first. */
    Node root() {
        return root;
    }

    /** Number of nodes added, the root included (once). */
    int count() {
        return count;
    }

    /** A path given twice (the first seen), or null. */
    String duplicate() {
        return duplicate;
    }

    /**
     * Links what still waits (shallow parents first, so deeper ones are reachable when their turn comes) and returns
     * the orphans by path (still counted by {@link #count()}, as the tree counts them until replay deletes them).
     */
    Map<String, Node> finish() {
        Map<String, Node> orphans = new HashMap<>();
        List<String> parents = new ArrayList<>(waiting.keySet());
        parents.sort(Comparator.comparingLong(TreeBuilder::depth));
        for (String parentPath : parents) {
            List<Node> kids = waiting.remove(parentPath);
            Node parent = DataTree.walk(root, orphans, parentPath);
            if (parent != null) {
                link(parentPath, parent, kids);
            } else {
                for (Node kid : kids) {
                    orphans.put(childPath(parentPath, kid), kid);
                }
            }
        }
        return orphans;
    }

    private void link(String parentPath, Node parent, List<Node> kids) {
        ChildSet set = parent.kids();
        for (Node kid : kids) {
            if (!set.add(kid) && duplicate == null) {
                duplicate = childPath(parentPath, kid);
            }
        }
    }

    private static String childPath(String parentPath, Node kid) {
        return ("/".equals(parentPath) ? "/" : parentPath + "/") + kid.name();
    }

    private static long depth(String path) {
        return path.chars().filter(c -> c == '/').count() - ("/".equals(path) ? 1 : 0);
    }
}
