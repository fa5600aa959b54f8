package dev.zkr.tree;

import dev.zkr.client.Acl;
import dev.zkr.client.Acls;
import dev.zkr.client.Id;
import dev.zkr.client.Perms;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The path-free layout (docs/architecture.md, "The tree in memory"): lookups that walk names, names that share
 * bytes, non-ASCII names, a leaf turning into a parent, aversions kept in shared ACL entries, and the figures that
 * used to come from stored paths.
 */
class DataTreeLayoutTest {
    private long zxid;

    private void create(DataTree tree, String path, String data) {
        zxid++;
        tree.apply(new TxnHeader(zxid, 1000 + zxid, 1, 0), new Txn.CreateNode(path,
                data == null ? null : data.getBytes(StandardCharsets.UTF_8), 0, false, (int) zxid));
    }

    @Test
    void lookupsWalkNamesThatShareBytes() {
        DataTree tree = new DataTree();
        for (String p : List.of("/a", "/ab", "/a/b", "/a/bc", "/ab/b", "/a/b/c", "/é", "/é/日本", "/a/b/c/d")) {
            create(tree, p, "data of " + p);
        }
        for (String p : List.of("/a", "/ab", "/a/b", "/a/bc", "/ab/b", "/a/b/c", "/é", "/é/日本", "/a/b/c/d")) {
            assertArrayEquals(("data of " + p).getBytes(StandardCharsets.UTF_8), tree.getData(p).data(), p);
        }
        for (String p : List.of("/b", "/a/c", "/abc", "/a/b/cd", "/ab/bc", "/e", "/é/日", "/a/", "/a//b", "", "a")) {
            assertNull(tree.exists(p), p);
            assertTrue(!tree.contains(p), p);
        }
        assertEquals(10, tree.nodeCount());
        tree.checkInvariants();
    }

    @Test
    void aLeafBecomesAParentAndKeepsItsData() {
        DataTree tree = new DataTree();
        create(tree, "/p", "parent data");
        create(tree, "/p/k", null);
        assertArrayEquals("parent data".getBytes(StandardCharsets.UTF_8), tree.getData("/p").data());
        assertNull(tree.getData("/p/k").data());
        zxid++;
        tree.apply(new TxnHeader(zxid, 5000, 1, 0), new Txn.SetData("/p", "new".getBytes(), 1));
        assertArrayEquals("new".getBytes(), tree.getData("/p").data());
        assertEquals(List.of("k"), tree.getChildren("/p").names());
        assertEquals(3, tree.getData("/p").stat().dataLength());
        tree.checkInvariants();
    }

    @Test
    void approximateBytesCountsPathsAndData() {
        DataTree tree = new DataTree();
        create(tree, "/a", "12345");
        create(tree, "/a/é", "xy");
        create(tree, "/b", null);
        // paths "/", "/a", "/a/é", "/b" (1 + 2 + 4 + 2 chars) and 5 + 2 data bytes
        assertEquals(9 + 7, tree.approximateBytes());
    }

    /**
     * A fuzzy snapshot can hold a child whose parent was deleted while it was written (children are written first).
     * As with the old map of paths, the orphan is found by its path after the read, until replay deletes it.
     */
    @Test
    void anOrphanOfAFuzzySnapshotIsFoundUntilReplayDeletesIt() throws IOException {
        DataTree tree = new DataTree();
        create(tree, "/a", "parent");
        create(tree, "/a/b", "child");
        long snapZxid = tree.lastZxid();
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        boolean[] deleted = {false};
        tree.writeSnapshot(new DataOutputStream(bytes), () -> {
            if (!deleted[0]) { // after the first node written, /a/b: delete it and its parent before /a is written
                deleted[0] = true;
                tree.apply(new TxnHeader(snapZxid + 1, 7000, 1, 0), new Txn.DeleteNode("/a/b"));
                tree.apply(new TxnHeader(snapZxid + 2, 7001, 1, 0), new Txn.DeleteNode("/a"));
            }
        });
        DataTree loaded = DataTree.readSnapshot(new DataInputStream(new ByteArrayInputStream(bytes.toByteArray())));
        assertNull(loaded.exists("/a"));
        assertArrayEquals("child".getBytes(StandardCharsets.UTF_8), loaded.getData("/a/b").data());
        assertEquals(2, loaded.nodeCount());
        loaded.apply(new TxnHeader(snapZxid + 1, 7000, 1, 0), new Txn.DeleteNode("/a/b"));
        loaded.apply(new TxnHeader(snapZxid + 2, 7001, 1, 0), new Txn.DeleteNode("/a"));
        assertNull(loaded.exists("/a/b"));
        assertEquals(tree.canonicalDump(), loaded.canonicalDump());
        loaded.checkInvariants();
    }

    @Test
    void aversionsLiveInSharedAclEntriesAndSurviveASnapshot() throws IOException {
        DataTree tree = new DataTree();
        List<Acl> readOnly = List.of(new Acl(Perms.READ, new Id("world", "anyone")));
        for (String p : List.of("/x", "/y", "/z")) {
            create(tree, p, "");
        }
        zxid++;
        tree.apply(new TxnHeader(zxid, 9000, 1, 0), new Txn.SetAcl("/x", readOnly, 1));
        zxid++;
        tree.apply(new TxnHeader(zxid, 9001, 1, 0), new Txn.SetAcl("/y", readOnly, 1));
        zxid++;
        tree.apply(new TxnHeader(zxid, 9002, 1, 0), new Txn.SetAcl("/y", Acls.OPEN_UNSAFE, 2));
        assertEquals(1, tree.exists("/x").aversion());
        assertEquals(2, tree.exists("/y").aversion());
        assertEquals(0, tree.exists("/z").aversion());
        assertEquals(Acls.OPEN_UNSAFE, tree.aclOf("/y"));
        assertEquals(2, tree.distinctAcls()); // open (with aversions 0 and 2) and read-only
        tree.checkInvariants();

        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        tree.writeSnapshot(new DataOutputStream(bytes));
        DataTree loaded = DataTree.readSnapshot(new DataInputStream(new ByteArrayInputStream(bytes.toByteArray())));
        assertEquals(tree.canonicalDump(), loaded.canonicalDump());
        assertEquals(2, loaded.exists("/y").aversion());
        assertEquals(2, loaded.distinctAcls());
        loaded.checkInvariants();
    }
    /**
     * A snapshot names every node by its full path, built while the tree is walked (each name read when the node is
     * visited, not when its parent pushed it) and refers to each distinct ACL once: long and non-ASCII names at
     * depth, siblings that share an ACL and siblings that alternate between two come back whole.
     */
    @Test
    void deepLongAndNonAsciiPathsAndAlternatingAclsSurviveASnapshot() throws IOException {
        DataTree tree = new DataTree();
        List<Acl> readOnly = List.of(new Acl(Perms.READ, new Id("world", "anyone")));
        String path = "";
        for (int depth = 0; depth < 6; depth++) {
            path += "/level-" + depth + "-" + "n".repeat(20 + depth) + (depth % 2 == 0 ? "-\u00e9\u4e2d" : "");
            create(tree, path, "d" + depth);
            for (int k = 0; k < 40; k++) {
                create(tree, path + "/kid-" + k, "k" + k);
                if (k % 3 == 0) {
                    zxid++;
                    tree.apply(new TxnHeader(zxid, 9100 + k, 1, 0), new Txn.SetAcl(path + "/kid-" + k, readOnly, 1));
                }
            }
        }
        tree.checkInvariants();
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        tree.writeSnapshot(new DataOutputStream(bytes));
        DataTree loaded = DataTree.readSnapshot(new DataInputStream(new ByteArrayInputStream(bytes.toByteArray())));
        assertEquals(tree.canonicalDump(), loaded.canonicalDump());
        assertEquals(tree.nodeCount(), loaded.nodeCount());
        assertEquals(2, loaded.distinctAcls());
        assertEquals(readOnly, loaded.aclOf(path + "/kid-39"));
        assertEquals(Acls.OPEN_UNSAFE, loaded.aclOf(path + "/kid-38"));
        loaded.checkInvariants();
    }
}
