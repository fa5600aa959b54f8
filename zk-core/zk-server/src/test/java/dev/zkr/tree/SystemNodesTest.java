package dev.zkr.tree;

import dev.zkr.client.CreateMode;
import dev.zkr.client.ZkException.Code;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The system nodes' write rules in the preparer, and a data directory that already holds a /zookeeper. */
class SystemNodesTest {

    private final DataTree tree = new DataTree();
    private final TxnPreparer preparer = new TxnPreparer(tree, 1024, 100, 1 << 20,
            dev.zkr.auth.Authorizer.defaults(), SystemNodes.standalone());
    private long zxid;

    private Prepared prepare(Request r) {
        return preparer.prepare(r, 0x77, List.of(), ++zxid);
    }

    private static Code code(Prepared p) {
        return assertInstanceOf(Prepared.Failed.class, p).code();
    }

    @Test
    void writesToThemAreRefused() {
        assertTrue(SystemNodes.standalone().shownOver(tree));
        assertEquals(Code.NODE_EXISTS, code(prepare(new Request.Create("/zookeeper", new byte[0],
                CreateMode.PERSISTENT, null))));
        assertEquals(Code.BAD_ARGUMENTS, code(prepare(new Request.Delete("/zookeeper/quota", -1))));
        assertEquals(Code.NO_AUTH, code(prepare(new Request.SetData("/zookeeper/config", new byte[0], -1))));
        assertEquals(Code.BAD_ARGUMENTS, code(prepare(new Request.Create("/zookeeper/quota/q", new byte[0],
                CreateMode.EPHEMERAL, null))));
        assertEquals(Code.NO_AUTH, code(prepare(new Request.Create("/zookeeper/config/c", new byte[0],
                CreateMode.PERSISTENT, null))));
        assertEquals(Code.NO_NODE, code(prepare(new Request.Create("/zookeeper/x/y", new byte[0],
                CreateMode.PERSISTENT, null))), "an ordinary missing parent");
        assertInstanceOf(Prepared.Ok.class, prepare(new Request.Create("/zookeeper", new byte[0],
                CreateMode.PERSISTENT_SEQUENTIAL, null)), "a sibling /zookeeper0000000000");
        assertInstanceOf(Prepared.Ok.class, prepare(Request.multi(List.of(dev.zkr.client.Op.check("/zookeeper", 0)))));
        assertEquals(Code.BAD_VERSION, code(prepare(Request.multi(List.of(dev.zkr.client.Op.check("/zookeeper", 1))))));
    }

    @Test
    void aTreeWithItsOwnZooKeeperNodeIsServedAsBefore() {
        // a data directory written before the system nodes existed may hold a client's /zookeeper
        tree.apply(new TxnHeader(1, 0, 0, 0), new Txn.CreateNode("/zookeeper", "mine".getBytes(), 0, false, 1));
        zxid = 1;
        assertFalse(SystemNodes.standalone().shownOver(tree));
        assertInstanceOf(Prepared.Ok.class, prepare(new Request.SetData("/zookeeper", new byte[0], -1)));
        assertInstanceOf(Prepared.Ok.class, prepare(new Request.Create("/zookeeper/quota", new byte[0],
                CreateMode.PERSISTENT, null)));
    }
}
