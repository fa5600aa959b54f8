package dev.zkr.tree;

import dev.zkr.client.OpResult;
import dev.zkr.client.ZkException;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

/** The session writes the tree keeps for exactly-once (docs/exactly-once.md): record, window, snapshot, install. */
class SessionWritesTest {

    private static final long SESSION = 0x1234L;

    private static DataTree treeWithSession() {
        DataTree tree = new DataTree();
        tree.apply(new TxnHeader(1, 10, SESSION, TxnHeader.NO_XID), new Txn.CreateSession(SESSION, 3000, new byte[16]));
        return tree;
    }

    private static ApplyResult create(DataTree tree, long zxid, int xid, String path) {
        return tree.apply(new TxnHeader(zxid, 10 + zxid, SESSION, xid),
                new Txn.CreateNode(path, new byte[0], 0, false, (int) zxid));
    }

    @Test
    void everyAppliedWriteOfASessionIsSavedWithItsResult() {
        DataTree tree = treeWithSession();
        ApplyResult r = create(tree, 2, 7, "/a");
        tree.apply(new TxnHeader(3, 13, SESSION, 8), new Txn.Error(ZkException.Code.NODE_EXISTS, "/a", List.of()));
        SavedReply saved = tree.savedReply(SESSION, 7);
        assertEquals(new SavedReply(7, 2, ZkException.Code.OK, null, r.results()), saved);
        assertEquals(ZkException.Code.NODE_EXISTS, tree.savedReply(SESSION, 8).code());
        assertEquals("/a", tree.savedReply(SESSION, 8).path());
        assertEquals(8, tree.highestAppliedXid(SESSION));
        assertNull(tree.savedReply(SESSION, 6));
        assertNull(tree.savedReply(SESSION, 9));
    }

    @Test
    void serverMadeTxnsAndUnknownSessionsSaveNothing() {
        DataTree tree = treeWithSession();
        tree.apply(new TxnHeader(2, 12, 0, TxnHeader.NO_XID), new Txn.CreateNode("/c", new byte[0], 0, true, 1));
        tree.apply(new TxnHeader(3, 13, 0x999, 4), new Txn.CreateNode("/d", new byte[0], 0, false, 2));
        assertEquals(0, tree.savedReplyCount());
        assertEquals(0, tree.highestAppliedXid(0x999));
    }

    @Test
    void theWindowKeepsTheLastWritesAndTheHighestXid() {
        DataTree tree = treeWithSession();
        int n = SessionWrites.WINDOW + 10;
        for (int i = 1; i <= n; i++) {
            create(tree, 1 + i, 2 * i, "/n" + i);
        }
        assertEquals(SessionWrites.WINDOW, tree.savedReplyCount());
        assertNull(tree.savedReply(SESSION, 20), "evicted");
        assertNotNull(tree.savedReply(SESSION, 22));
        assertNotNull(tree.savedReply(SESSION, 2 * n));
        assertNull(tree.savedReply(SESSION, 2 * n - 1), "an xid that was no write");
        assertEquals(2 * n, tree.highestAppliedXid(SESSION));
    }

    @Test
    void xidsCompareAsSerialNumbersAcrossTheirWraps() {
        // past MAX_VALUE on to MIN_VALUE, and (2^31 requests later) past -1 on to 1, skipping 0
        int[][] runs = {{Integer.MAX_VALUE - 1, Integer.MAX_VALUE, Integer.MIN_VALUE, Integer.MIN_VALUE + 1},
            {-2, -1, 1, 2}};
        for (int[] xids : runs) {
            DataTree tree = treeWithSession();
            long zxid = 2;
            for (int xid : xids) {
                create(tree, zxid++, xid, "/w" + zxid);
            }
            for (int xid : xids) {
                assertNotNull(tree.savedReply(SESSION, xid), "xid " + xid);
                assertTrue(tree.appliedUpTo(SESSION, xid), "xid " + xid);
            }
            int last = xids[xids.length - 1];
            assertEquals(last, tree.highestAppliedXid(SESSION));
            assertFalse(tree.appliedUpTo(SESSION, last + 1), "the next xid is new");
            assertNull(tree.savedReply(SESSION, last + 1));
        }
        assertFalse(treeWithSession().appliedUpTo(SESSION, -5), "a session with no write applied");
    }

    @Test
    void aWriteAppliedAfterALaterOneOfItsSessionIsSavedToo() {
        DataTree tree = treeWithSession();
        create(tree, 2, 7, "/a");
        create(tree, 3, 9, "/b");
        create(tree, 4, 8, "/c"); // its first attempt was lost while 9 got through
        assertEquals(9, tree.highestAppliedXid(SESSION));
        assertEquals(4, tree.savedReply(SESSION, 8).zxid());
        assertEquals(3, tree.savedReply(SESSION, 9).zxid());
        assertEquals(2, tree.savedReply(SESSION, 7).zxid());
        assertFalse(tree.replyDropped(SESSION, 5));
    }

    @Test
    void aReplyDroppedToKeepTheWindowIsKnownAsDropped() {
        DataTree tree = treeWithSession();
        for (int i = 1; i <= SessionWrites.WINDOW + 1; i++) {
            create(tree, 1 + i, 2 * i, "/n" + i);
        }
        assertTrue(tree.replyDropped(SESSION, 2));
        assertTrue(tree.replyDropped(SESSION, 3), "below the oldest kept, never a write: still not to be applied");
        assertFalse(tree.replyDropped(SESSION, 4));
        assertFalse(tree.replyDropped(SESSION, 2 * SessionWrites.WINDOW + 4));
    }

    @Test
    void aReplayedWriteKeepsTheReplySavedFirst() {
        DataTree tree = treeWithSession();
        create(tree, 2, 7, "/a");
        SavedReply first = tree.savedReply(SESSION, 7);
        tree.apply(new TxnHeader(2, 12, SESSION, 7), new Txn.SetData("/a", new byte[3], 1)); // not what 7 was
        assertEquals(first, tree.savedReply(SESSION, 7));
    }

    @Test
    void closingTheSessionDropsItsWrites() {
        DataTree tree = treeWithSession();
        create(tree, 2, 7, "/a");
        tree.apply(new TxnHeader(3, 13, SESSION, 8), new Txn.CloseSession(SESSION));
        assertNull(tree.savedReply(SESSION, 7));
        assertEquals(0, tree.savedReplyCount());
    }

    @Test
    void snapshotsAndInstallsCarryTheWrites() throws IOException {
        DataTree tree = treeWithSession();
        create(tree, 2, 7, "/a");
        tree.apply(new TxnHeader(3, 13, SESSION, 9), new Txn.SetData("/a", new byte[2], 1));
        tree.apply(new TxnHeader(4, 14, SESSION, 11), new Txn.Multi(List.of(new Txn.Check("/a", 1),
                new Txn.DeleteNode("/a"))));
        tree.apply(new TxnHeader(5, 15, SESSION, 12), new Txn.Error(ZkException.Code.BAD_VERSION, "/b",
                List.of(ZkException.Code.OK, ZkException.Code.BAD_VERSION)));
        DataTree read = roundTrip(tree);
        assertEquals(tree.canonicalDump(), read.canonicalDump());
        assertEquals(tree.savedReply(SESSION, 11), read.savedReply(SESSION, 11));
        assertEquals(List.of(new OpResult.CheckResult(), new OpResult.DeleteResult()),
                read.savedReply(SESSION, 11).results());
        assertEquals(12, read.highestAppliedXid(SESSION));

        DataTree follower = new DataTree();
        follower.replaceWith(roundTrip(tree));
        assertEquals(tree.canonicalDump(), follower.canonicalDump());
        assertEquals(tree.savedReply(SESSION, 9), follower.savedReply(SESSION, 9));
    }

    private static ApplyResult setData(DataTree tree, long zxid, int xid, int acked) {
        return tree.apply(new TxnHeader(zxid, 10 + zxid, SESSION, xid, acked), new Txn.SetData("/a", new byte[1], 1));
    }

    @Test
    void anAcknowledgementDropsTheRepliesBeforeIt() {
        DataTree tree = treeWithSession();
        create(tree, 2, 1, "/a");
        setData(tree, 3, 2, 1);
        setData(tree, 4, 3, 1);
        assertEquals(3, tree.savedReplyCount(SESSION));
        setData(tree, 5, 4, 3); // the client has the replies of 1 and 2
        assertEquals(2, tree.savedReplyCount(SESSION));
        assertNull(tree.savedReply(SESSION, 2));
        assertNotNull(tree.savedReply(SESSION, 3));
        assertTrue(tree.replyDropped(SESSION, 2), "sent again, it must not be applied again");
        assertTrue(tree.replyDropped(SESSION, 1));
        assertFalse(tree.replyDropped(SESSION, 3));
        setData(tree, 6, 5, 2); // an older acknowledgement (another connection's, delayed) takes nothing back
        assertEquals(3, tree.savedReplyCount(SESSION));
        assertTrue(tree.replyDropped(SESSION, 2));
        setData(tree, 7, 6, 9); // more than the write itself: taken up to the write
        assertEquals(1, tree.savedReplyCount(SESSION));
        assertNotNull(tree.savedReply(SESSION, 6));
        assertEquals(6, tree.highestAppliedXid(SESSION));
    }

    @Test
    void aSessionThatAcknowledgesKeepsOnlyItsWritesInFlight() {
        DataTree tree = treeWithSession();
        create(tree, 2, 1, "/a");
        for (int x = 2; x <= 3 * SessionWrites.WINDOW; x++) { // 8 in flight: it waits for x - 7 on
            setData(tree, x + 1, x, Math.max(1, x - 7));
        }
        assertEquals(8, tree.savedReplyCount(SESSION));
        assertNotNull(tree.savedReply(SESSION, 3 * SessionWrites.WINDOW - 7));
        assertNull(tree.savedReply(SESSION, 3 * SessionWrites.WINDOW - 8));
    }

    @Test
    void aWriteBelowTheAcknowledgementAppliedLateIsNotSaved() {
        // e.g. replayed over a snapshot that holds the acknowledgement: its reply stays dropped
        DataTree tree = treeWithSession();
        setData(tree, 2, 5, 5);
        tree.apply(new TxnHeader(3, 13, SESSION, 4, 4), new Txn.SetData("/a", new byte[1], 1));
        assertNull(tree.savedReply(SESSION, 4));
        assertEquals(1, tree.savedReplyCount(SESSION));
    }

    @Test
    void snapshotsCarryTheAcknowledgement() throws IOException {
        DataTree tree = treeWithSession();
        create(tree, 2, 1, "/a");
        setData(tree, 3, 2, 1);
        setData(tree, 4, 3, 3);
        DataTree read = roundTrip(tree);
        assertEquals(tree.canonicalDump(), read.canonicalDump());
        assertTrue(read.canonicalDump().contains("acked=3"), read.canonicalDump());
        assertTrue(read.replyDropped(SESSION, 2), "the acknowledgement survives the snapshot");
        // the txns after the snapshot's zxid replay over it as on the tree that wrote it
        setData(tree, 5, 4, 4);
        setData(read, 5, 4, 4);
        assertEquals(tree.canonicalDump(), read.canonicalDump());
        assertEquals(1, read.savedReplyCount(SESSION));
    }

    private static DataTree roundTrip(DataTree tree) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        tree.writeSnapshot(new DataOutputStream(bytes));
        return DataTree.readSnapshot(new DataInputStream(new ByteArrayInputStream(bytes.toByteArray())));
    }
}
