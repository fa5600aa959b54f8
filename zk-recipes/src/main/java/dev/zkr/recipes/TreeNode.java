package dev.zkr.recipes;

import dev.zkr.client.Stat;

import java.util.List;

/**
 * One node of the tree cache's copy, laid out to be small because a copy may hold millions: its name (not its
 * path: {@link TreeState} finds a node by walking the path's names from the root), its Stat as primitive fields
 * (a {@link Stat} object per node would add a header and a reference), its children in a {@link ChildTable} made
 * only once it has some (most nodes of a large subtree are leaves), and its data when the cache has no data bound
 * ({@link HeldData}). Not thread-safe: the tree cache serialises every use.
 */
final class TreeNode {

    final String name;
    /** The next node in the same bucket of the parent's {@link ChildTable} (the table chains its nodes). */
    TreeNode next;
    /** The data held in the node itself (no data bound), else null; see {@link HeldData}. */
    byte[] data;
    private ChildTable children;

    // the Stat, field by field
    private long czxid;
    private long mzxid;
    private long pzxid;
    private long ctime;
    private long mtime;
    private long ephemeralOwner;
    private int version;
    private int cversion;
    private int aversion;
    private int dataLength;
    private int numChildren;

    TreeNode(String name, Stat stat) {
        this.name = name;
        setStat(stat);
    }

    long czxid() {
        return czxid;
    }

    long mzxid() {
        return mzxid;
    }

    void setStat(Stat stat) {
        czxid = stat.czxid();
        mzxid = stat.mzxid();
        pzxid = stat.pzxid();
        ctime = stat.ctime();
        mtime = stat.mtime();
        ephemeralOwner = stat.ephemeralOwner();
        version = stat.version();
        cversion = stat.cversion();
        aversion = stat.aversion();
        dataLength = stat.dataLength();
        numChildren = stat.numChildren();
    }

    /** The Stat, made anew on each call. */
    Stat stat() {
        return new Stat(czxid, mzxid, pzxid, ctime, mtime, version, cversion, aversion, ephemeralOwner, dataLength,
                numChildren);
    }

    /** The child named by {@code path}'s characters {@code start} (inclusive) to {@code end}, or null. */
    TreeNode child(String path, int start, int end) {
        return children == null ? null : children.get(path, start, end);
    }

    /** Adds a child whose name this node does not have yet. */
    void addChild(TreeNode child) {
        if (children == null) {
            children = new ChildTable();
        }
        children.add(child);
    }

    /** Removes a child of this node; the table goes with the last one. */
    void removeChild(TreeNode child) {
        if (children != null && children.remove(child) && children.isEmpty()) {
            children = null;
        }
    }

    /** The children, sorted by name. */
    List<TreeNode> children() {
        return children == null ? List.of() : children.sorted();
    }
}
