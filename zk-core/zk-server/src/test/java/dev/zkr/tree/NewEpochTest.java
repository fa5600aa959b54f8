package dev.zkr.tree;

import dev.zkr.consensus.Zxid;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The {@code EPOCH} record: how it is encoded in the log and applied. */
class NewEpochTest {

    @Test
    void encodesAndDecodesWithItsHeader() {
        TxnHeader header = new TxnHeader(Zxid.of(7, 0), 1_700_000_000_000L, 0, TxnHeader.NO_XID);
        byte[] bytes = TxnCodec.encode(header, new Txn.NewEpoch(7, 3));
        TxnCodec.Entry e = TxnCodec.decode(bytes);
        assertEquals(header, e.header());
        assertEquals(new Txn.NewEpoch(7, 3), e.txn());
        assertTrue(bytes.length <= TxnSize.upperBound(e.txn()), "size bound holds");
    }

    @Test
    void applyingItMovesOnlyTheLastZxid() throws IOException {
        DataTree tree = new DataTree();
        tree.apply(new TxnHeader(Zxid.of(1, 1), 1, 0, 1),
                new Txn.CreateNode("/a", "x".getBytes(StandardCharsets.UTF_8), 0, false, 1));
        byte[] before = snapshot(tree);
        int nodes = tree.nodeCount();
        ApplyResult r = tree.apply(new TxnHeader(Zxid.of(2, 0), 2, 0, TxnHeader.NO_XID), new Txn.NewEpoch(2, 1));
        assertEquals(dev.zkr.client.ZkException.Code.OK, r.code());
        assertTrue(r.triggers().isEmpty());
        assertEquals(Zxid.of(2, 0), tree.lastZxid());
        assertEquals(nodes, tree.nodeCount());
        // the snapshot differs only in its lastZxid field (the 8 bytes after magic and version) and the newest txn
        // time in its trailer (the last 8 bytes)
        byte[] after = snapshot(tree);
        assertEquals(before.length, after.length);
        assertEquals(2, tree.lastTxnTime());
        for (int i = 16; i < after.length - 8; i++) {
            assertEquals(before[i], after[i], "snapshot byte " + i);
        }
    }

    @Test
    void isRefusedInsideAMulti() throws IOException {
        assertThrows(IllegalArgumentException.class, () -> new Txn.Multi(java.util.List.of(new Txn.NewEpoch(1, 1))));
        // a hand-crafted multi holding the EPOCH tag does not decode
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(b);
        out.writeByte(0x82);
        out.writeLong(Zxid.of(1, 1));
        out.writeLong(0);
        out.writeLong(0);
        out.writeInt(0);
        out.writeByte(5); // MULTI
        out.writeInt(1);
        out.writeByte(9); // NEW_EPOCH
        out.writeLong(1);
        out.writeInt(1);
        assertThrows(IllegalArgumentException.class, () -> TxnCodec.decode(b.toByteArray()));
    }

    private static byte[] snapshot(DataTree tree) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        tree.writeSnapshot(new DataOutputStream(out));
        return out.toByteArray();
    }
}
