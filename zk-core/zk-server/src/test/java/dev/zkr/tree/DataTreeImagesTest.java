package dev.zkr.tree;

import dev.zkr.client.Acl;
import dev.zkr.client.Acls;
import dev.zkr.client.Id;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** {@link DataTree#forEachImage} and {@link DataTree#fromImages}: a tree through its images is the same tree. */
class DataTreeImagesTest {

    @Test
    void aTreeRebuiltFromItsImagesIsTheSameTree() throws IOException {
        DataTree tree = new DataTree();
        long z = 0;
        List<Acl> readOnly = List.of(new Acl(1, new Id("world", "anyone")));
        tree.apply(new TxnHeader(++z, 10, 7, 0), new Txn.CreateSession(7, 5000, new byte[] {1, 2}));
        tree.apply(new TxnHeader(++z, 11, 0, 0), new Txn.CreateNode("/a", "x".getBytes(), 0, false, 1));
        tree.apply(new TxnHeader(++z, 12, 0, 0), new Txn.CreateNode("/a/box", null, 0, true, 1));
        tree.apply(new TxnHeader(++z, 13, 0, 0), new Txn.CreateNode("/a/box/k", new byte[0], 0, false, 1));
        tree.apply(new TxnHeader(++z, 14, 7, 0), new Txn.CreateNode("/a/eph", new byte[3], 7, false, 2));
        tree.apply(new TxnHeader(++z, 15, 0, 0), new Txn.CreateNode("/a/ttl", new byte[1], 0, false, 3,
                Acls.OPEN_UNSAFE, 60_000));
        tree.apply(new TxnHeader(++z, 16, 0, 0), new Txn.CreateNode("/a/gone", new byte[1], 0, false, 4));
        tree.apply(new TxnHeader(++z, 17, 0, 0), new Txn.DeleteNode("/a/gone"));
        tree.apply(new TxnHeader(++z, 18, 0, 0), new Txn.SetData("/a", "y".getBytes(), 1));
        tree.apply(new TxnHeader(++z, 19, 0, 0), new Txn.SetAcl("/a/ttl", readOnly, 1));

        List<NodeImage> images = new ArrayList<>();
        tree.forEachImage(images::add);
        assertEquals("/", images.get(0).path());
        NodeImage a = images.stream().filter(i -> i.path().equals("/a")).findFirst().orElseThrow();
        assertEquals(4, a.cversion()); // creations, not the client's 2 * 4 - 3
        DataTree copy = DataTree.fromImages(tree.lastZxid(), tree.lastTxnTime(), tree.sessions().values(), images);
        assertEquals(tree.canonicalDump(), copy.canonicalDump());
        assertEquals(tree.exists("/a"), copy.exists("/a"));
        assertArrayEquals(snapshot(tree), snapshot(copy));
        copy.checkInvariants();
    }

    @Test
    void badImagesAreRefused() {
        NodeImage root = image("/", 0, 0);
        assertThrows(IllegalArgumentException.class, () -> build(root, image("/a/b", 0, 0)));
        assertThrows(IllegalArgumentException.class, () -> build(root, image("/a", 0, 0), image("/a", 0, 0)));
        assertThrows(IllegalArgumentException.class, () -> build(root, image("/a/", 0, 0)));
        assertThrows(IllegalArgumentException.class, () -> build(root, image("/a", -1, 0)));
        assertThrows(IllegalArgumentException.class, () -> build(root, new NodeImage("/t", null, Acls.OPEN_UNSAFE,
                1, 1, 1, 0, 0, 0, 0, 0, 5, false, 1000)));
    }

    private static DataTree build(NodeImage... images) {
        return DataTree.fromImages(1, 0, List.of(), List.of(images));
    }

    private static NodeImage image(String path, int cversion, long owner) {
        return new NodeImage(path, null, Acls.OPEN_UNSAFE, 1, 1, 1, 0, 0, 0, cversion, 0, owner, false, 0);
    }

    private static byte[] snapshot(DataTree tree) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        tree.writeSnapshot(new DataOutputStream(bytes));
        return bytes.toByteArray();
    }
}
