package dev.zkr.tree;

/**
 * Test access to {@link DataTree}'s internal consistency check from other packages (the whole-server simulator):
 * children sets, ephemeral and container indexes, pzxid/cversion, ACL reference counts.
 */
public final class TreeInvariants {

    private TreeInvariants() {
    }

    /** Throws {@link IllegalStateException} naming what is inconsistent. */
    public static void check(DataTree tree) {
        tree.checkInvariants();
    }

    /** A simulator mutation: the tree forgets every session's applied writes (a buggy load or SNAP install). */
    public static void forgetSessionWrites(DataTree tree) {
        tree.forgetSessionWrites();
    }
}
