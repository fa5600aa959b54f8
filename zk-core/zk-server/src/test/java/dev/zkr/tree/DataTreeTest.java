package dev.zkr.tree;

import dev.zkr.client.CreateMode;
import dev.zkr.client.Stat;
import dev.zkr.client.WatchedEvent;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.List;
import java.util.Set;
import java.util.HashSet;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class DataTreeTest {

    @Test
    void rootExistsWithZeroedStat() {
        DataTree tree = new DataTree();
        assertEquals(new Stat(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0), tree.exists("/"));
        assertEquals(List.of(), tree.getChildren("/").names());
        assertNull(tree.exists("/nope"));
        assertNull(tree.getData("/nope"));
        assertNull(tree.getChildren("/nope"));
        assertEquals(1, tree.nodeCount());
    }

    @Test
    void createSetsStatAndParentCversionPzxid() {
        DataTree tree = new DataTree();
        ApplyResult r = tree.apply(new TxnHeader(5, 100, 1, 0), new Txn.CreateNode("/a", "hi".getBytes(), 0, false, 1));
        Stat a = tree.exists("/a");
        assertEquals(new Stat(5, 5, 5, 100, 100, 0, 0, 0, 0, 2, 0), a);
        assertEquals(a, ((dev.zkr.client.OpResult.CreateResult) r.single()).stat());
        Stat root = tree.exists("/");
        assertEquals(1, root.cversion());
        assertEquals(5, root.pzxid());
        assertEquals(0, root.mzxid());
        assertEquals(1, root.numChildren());
        assertEquals(List.of(new WatchTrigger("/a", WatchedEvent.Type.NODE_CREATED, 5),
                new WatchTrigger("/", WatchedEvent.Type.NODE_CHILDREN_CHANGED, 5)), r.triggers());
        assertEquals(5, tree.lastZxid());
    }

    @Test
    void setDataAndDeleteFollowZooKeeper() {
        Pipeline p = new Pipeline();
        p.create("/a");
        p.create("/a/b");
        Stat before = p.tree.exists("/a");
        Stat s = p.setData("/a/b", "x", 0);
        assertEquals(1, s.version());
        assertEquals(3, s.mzxid());
        assertEquals(2, s.czxid());
        assertEquals(1, s.dataLength());
        assertArrayEquals("x".getBytes(), p.tree.getData("/a/b").data());
        // setData does not touch the parent
        assertEquals(before, p.tree.exists("/a"));
        p.delete("/a/b", 1);
        Stat a = p.tree.exists("/a");
        assertEquals(2, a.cversion(), "a delete is a child change, as in ZooKeeper");
        assertEquals(4, a.pzxid());
        assertEquals(0, a.numChildren());
        assertNull(p.tree.exists("/a/b"));
    }

    @Test
    void ephemeralsAreIndexedAndDeletedWithTheSession() {
        Pipeline p = new Pipeline();
        p.openSession(7);
        p.create("/locks");
        p.create(7, "/locks/e", "", CreateMode.EPHEMERAL);
        String seq = p.create(7, "/locks/s-", "", CreateMode.EPHEMERAL_SEQUENTIAL);
        assertEquals(7, p.tree.exists("/locks/e").ephemeralOwner());
        assertEquals(List.of("/locks/e", seq), p.tree.ephemerals(7));
        assertNotNull(p.tree.session(7));
        ApplyResult r = p.submit(7, new Request.CloseSession(7));
        assertNull(p.tree.exists("/locks/e"));
        assertNull(p.tree.exists(seq));
        assertEquals(List.of(), p.tree.ephemerals(7));
        assertNull(p.tree.session(7));
        long z = p.zxid;
        assertEquals(List.of(
                new WatchTrigger("/locks/e", WatchedEvent.Type.NODE_DELETED, z),
                new WatchTrigger("/locks", WatchedEvent.Type.NODE_CHILDREN_CHANGED, z),
                new WatchTrigger(seq, WatchedEvent.Type.NODE_DELETED, z),
                new WatchTrigger("/locks", WatchedEvent.Type.NODE_CHILDREN_CHANGED, z)), r.triggers());
    }

    @Test
    void containerIsDueOnlyAfterItHadChildren() {
        Pipeline p = new Pipeline();
        p.create("/c", CreateMode.CONTAINER);
        assertEquals(List.of(), p.tree.containersToDelete(), "never had a child: not due (no grace-period rule)");
        assertEquals(0, p.tree.exists("/c").ephemeralOwner());
        p.create("/c/x");
        assertEquals(List.of(), p.tree.containersToDelete());
        p.delete("/c/x", -1);
        assertEquals(List.of("/c"), p.tree.containersToDelete());
        p.submit(0, new Request.DeleteContainer("/c"));
        assertNull(p.tree.exists("/c"));
        assertEquals(List.of(), p.tree.containersToDelete());
    }

    @Test
    void manyChildrenAddRemove() {
        DataTree tree = new DataTree();
        long z = 0;
        tree.apply(new TxnHeader(++z, 0, 0, 0), new Txn.CreateNode("/p", new byte[0], 0, false, 1));
        Set<String> expected = new HashSet<>();
        for (int i = 0; i < 2000; i++) {
            tree.apply(new TxnHeader(++z, 0, 0, 0), new Txn.CreateNode("/p/c" + i, new byte[0], 0, false, i + 1));
            expected.add("c" + i);
        }
        for (int i = 0; i < 2000; i += 3) {
            tree.apply(new TxnHeader(++z, 0, 0, 0), new Txn.DeleteNode("/p/c" + i));
            expected.remove("c" + i);
        }
        assertEquals(expected, new HashSet<>(tree.getChildren("/p").names()));
        assertEquals(expected.size(), tree.exists("/p").numChildren());
        tree.checkInvariants();
    }

    @Test
    void replayIsTolerant() {
        DataTree tree = new DataTree();
        TxnHeader h1 = new TxnHeader(1, 10, 0, 0);
        Txn.CreateNode c = new Txn.CreateNode("/a", new byte[] {1}, 0, false, 1);
        tree.apply(h1, c);
        String once = tree.canonicalDump();
        tree.apply(h1, c);
        assertEquals(once, tree.canonicalDump());
        tree.apply(new TxnHeader(2, 20, 0, 0), new Txn.DeleteNode("/a"));
        tree.apply(new TxnHeader(2, 20, 0, 0), new Txn.DeleteNode("/a"));
        tree.apply(new TxnHeader(3, 30, 0, 0), new Txn.SetData("/a", new byte[0], 1));
        assertNull(tree.exists("/a"));
        assertEquals(2, tree.exists("/").pzxid());
        tree.checkInvariants();
    }

    @Test
    void replayedDeleteOfMissingNodeStillSetsParentPzxid() {
        // fuzzy snapshot: the parent was written before the child was deleted, the child not at all
        DataTree tree = new DataTree();
        tree.apply(new TxnHeader(1, 10, 0, 0), new Txn.CreateNode("/p", new byte[0], 0, false, 1));
        tree.apply(new TxnHeader(2, 20, 0, 0), new Txn.CreateNode("/p/x", new byte[0], 0, false, 1));
        tree.apply(new TxnHeader(3, 30, 0, 0), new Txn.DeleteNode("/p/x"));
        String expected = tree.canonicalDump();
        DataTree fuzzy = new DataTree();
        fuzzy.apply(new TxnHeader(1, 10, 0, 0), new Txn.CreateNode("/p", new byte[0], 0, false, 1));
        fuzzy.apply(new TxnHeader(2, 20, 0, 0), new Txn.CreateNode("/p/x", new byte[0], 0, false, 1));
        fuzzy.apply(new TxnHeader(3, 30, 0, 0), new Txn.DeleteNode("/p/x"));
        // now the same tree but with /p's pzxid from before the delete and /p/x already gone
        DataTree stale = new DataTree();
        stale.apply(new TxnHeader(1, 10, 0, 0), new Txn.CreateNode("/p", new byte[0], 0, false, 1));
        stale.apply(new TxnHeader(2, 20, 0, 0), new Txn.CreateNode("/p/x", new byte[0], 0, false, 1));
        stale.apply(new TxnHeader(2, 20, 0, 0), new Txn.DeleteNode("/p/x")); // removes /p/x, pzxid stays 2
        assertEquals(2, stale.exists("/p").pzxid());
        stale.apply(new TxnHeader(3, 30, 0, 0), new Txn.DeleteNode("/p/x")); // replay: node missing
        assertEquals(3, stale.exists("/p").pzxid());
        assertEquals(expected, stale.canonicalDump());
        assertEquals(expected, fuzzy.canonicalDump());
    }

    @Test
    void replayedCreateOfExistingNodeRaisesParentCversion() {
        DataTree tree = new DataTree();
        tree.apply(new TxnHeader(1, 10, 0, 0), new Txn.CreateNode("/p", new byte[0], 0, false, 1));
        tree.apply(new TxnHeader(2, 20, 0, 0), new Txn.CreateNode("/p/x", new byte[0], 0, false, 1));
        DataTree stale = new DataTree();
        stale.apply(new TxnHeader(1, 10, 0, 0), new Txn.CreateNode("/p", new byte[0], 0, false, 1));
        stale.apply(new TxnHeader(2, 20, 0, 0), new Txn.CreateNode("/p/x", new byte[0], 0, false, 0)); // stale parent
        assertEquals(-1, stale.exists("/p").cversion()); // 0 creations counted (stale), 1 child: 2 * 0 - 1
        stale.apply(new TxnHeader(2, 20, 0, 0), new Txn.CreateNode("/p/x", new byte[0], 0, false, 1));
        assertEquals(tree.canonicalDump(), stale.canonicalDump());
    }

    @Test
    void deletingRootIsRejected() {
        DataTree tree = new DataTree();
        assertThrows(IllegalArgumentException.class, () -> tree.apply(new TxnHeader(1, 0, 0, 0), new Txn.DeleteNode("/")));
    }

    @Test
    void snapshotRoundTrip() throws IOException {
        Pipeline p = new Pipeline();
        p.openSession(9);
        p.create("/a");
        p.create("/a/c", CreateMode.CONTAINER);
        p.create("/a/c/x");
        p.create(9, "/a/e", "eph", CreateMode.EPHEMERAL);
        p.setData("/a", "data", -1);
        DataTree restored = roundTrip(p.tree);
        assertEquals(p.tree.canonicalDump(), restored.canonicalDump());
        restored.checkInvariants();
        assertEquals(p.tree.lastZxid(), restored.lastZxid());
        assertEquals(List.of("/a/e"), restored.ephemerals(9));
        assertEquals(p.tree.sessions(), restored.sessions());
    }

    @Test
    void aSnapshotKeepsTheNewestTxnTimeAndOneWithoutItReadsAsUnknown() throws IOException {
        DataTree tree = new DataTree();
        tree.apply(new dev.zkr.tree.TxnHeader(5, 1_234_567, 0, 0), new Txn.NewEpoch(1, 1));
        assertEquals(1_234_567, roundTrip(tree).lastTxnTime());
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        tree.writeSnapshot(new DataOutputStream(bytes));
        byte[] withoutTrailer = java.util.Arrays.copyOf(bytes.toByteArray(), bytes.size() - 9); // as written before
        DataTree old = DataTree.readSnapshot(new DataInputStream(new ByteArrayInputStream(withoutTrailer)));
        assertEquals(0, old.lastTxnTime());
        assertEquals(tree.canonicalDump(), old.canonicalDump());
    }

    @Test
    void corruptSnapshotIsRejected() {
        byte[] garbage = {0, 1, 2, 3, 4, 5, 6, 7, 8};
        assertThrows(IOException.class, () -> DataTree.readSnapshot(new DataInputStream(new ByteArrayInputStream(garbage))));
    }

    static DataTree roundTrip(DataTree tree) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        tree.writeSnapshot(new DataOutputStream(bytes));
        return DataTree.readSnapshot(new DataInputStream(new ByteArrayInputStream(bytes.toByteArray())));
    }

    @Test
    void canonicalDumpSeesEveryField() {
        Pipeline a = new Pipeline();
        Pipeline b = new Pipeline();
        a.create("/x");
        b.create("/x");
        assertEquals(a.tree.canonicalDump(), b.tree.canonicalDump());
        b.setData("/x", "", -1);
        assertTrue(!a.tree.canonicalDump().equals(b.tree.canonicalDump()));
    }
}
