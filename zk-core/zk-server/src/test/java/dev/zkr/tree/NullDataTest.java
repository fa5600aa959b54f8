package dev.zkr.tree;

import dev.zkr.client.CreateMode;
import dev.zkr.client.Op;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * ZooKeeper's null data: stored as null, dataLength 0, and kept through the log and the snapshot with the length -1
 * both formats already had for a null array (no format change: a data directory without null data reads as before).
 */
class NullDataTest {

    private final DataTree tree = new DataTree();
    private final TxnPreparer preparer = new TxnPreparer(tree);
    private long zxid;

    private void write(Request r) {
        Prepared p = preparer.prepare(r, 0, ++zxid);
        Txn txn = assertInstanceOf(Prepared.Ok.class, p).txn();
        byte[] logged = TxnCodec.encode(new TxnHeader(zxid, 0, 0, 0), txn);
        TxnCodec.Entry back = TxnCodec.decode(logged);
        assertEquals(txn, back.txn(), "the log keeps it");
        tree.apply(back.header(), back.txn());
        preparer.applied(zxid);
    }

    @Test
    void nullDataIsStoredLoggedAndSnapshottedAsNull() throws IOException {
        write(new Request.Create("/n", null, CreateMode.PERSISTENT));
        write(new Request.Create("/e", new byte[0], CreateMode.PERSISTENT));
        write(Request.multi(List.of(Op.create("/m", null, CreateMode.PERSISTENT), Op.setData("/e", null, -1))));
        assertNull(tree.getData("/n").data());
        assertEquals(0, tree.getData("/n").stat().dataLength());
        assertNull(tree.getData("/m").data());
        assertNull(tree.getData("/e").data(), "setData(null) makes it null");
        write(new Request.SetData("/e", new byte[0], -1));
        assertArrayEquals(new byte[0], tree.getData("/e").data(), "empty stays empty, not null");

        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        tree.writeSnapshot(new DataOutputStream(bytes));
        DataTree back = DataTree.readSnapshot(new DataInputStream(new ByteArrayInputStream(bytes.toByteArray())));
        assertNull(back.getData("/n").data());
        assertArrayEquals(new byte[0], back.getData("/e").data());
        assertEquals(tree.canonicalDump(), back.canonicalDump());
    }
}
