package dev.zkr.tree;

import dev.zkr.client.WatchedEvent;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * {@link DataTree#replaceWith}: a follower's tree becomes an installed snapshot in place (docs/replication.md,
 * Persistence rules, P3 d).
 */
class DataTreeReplaceTest {

    private static final long S1 = 0x101;
    private static final long S2 = 0x102;
    private static final long S3 = 0x103;

    /** The history both trees share (the follower's committed prefix), zxids 1..9. */
    private static List<Txn> common() {
        return List.of(
                new Txn.CreateSession(S1, 10_000, new byte[] {1}),
                new Txn.CreateSession(S2, 10_000, new byte[] {2}),
                new Txn.CreateNode("/a", "a".getBytes(), 0, false, 1),
                new Txn.CreateNode("/a/x", new byte[0], 0, false, 1),
                new Txn.CreateNode("/b", new byte[0], 0, false, 2),
                new Txn.CreateNode("/e", new byte[0], S1, false, 3),
                new Txn.CreateNode("/c", new byte[0], 0, true, 4),
                new Txn.CreateNode("/c/k", new byte[0], 0, false, 1),
                new Txn.CreateNode("/same", "s".getBytes(), 0, false, 5));
    }

    /** What the leader applied after it, zxids 10..17 (the snapshot's state). */
    private static List<Txn> later() {
        return List.of(
                new Txn.SetData("/a", "a2".getBytes(), 1),
                new Txn.DeleteNode("/a/x"),
                new Txn.CreateNode("/b/y", new byte[0], 0, false, 1),
                new Txn.CloseSession(S1),
                new Txn.CreateSession(S3, 20_000, new byte[] {3}),
                new Txn.DeleteNode("/same"),
                new Txn.CreateNode("/same", "t".getBytes(), 0, false, 6),
                new Txn.CreateNode("/c/k2", new byte[0], 0, false, 2));
    }

    private static DataTree applied(List<List<Txn>> parts) {
        DataTree tree = new DataTree();
        long zxid = 0;
        for (List<Txn> part : parts) {
            for (Txn t : part) {
                zxid++;
                tree.apply(new TxnHeader(zxid, 1000 + zxid, 0, 0), t);
            }
        }
        return tree;
    }

    private static DataTree throughSnapshot(DataTree tree) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        tree.writeSnapshot(new DataOutputStream(bytes));
        return DataTree.readSnapshot(new DataInputStream(new ByteArrayInputStream(bytes.toByteArray())));
    }

    @Test
    void theTreeBecomesTheLoadedOneInPlaceAndReportsWhatChanged() throws IOException {
        DataTree follower = applied(List.of(common()));
        DataTree heldByAStage = follower;
        String expected = applied(List.of(common(), later())).canonicalDump();
        DataTree loaded = throughSnapshot(applied(List.of(common(), later())));

        Replacement r = follower.replaceWith(loaded);

        assertSame(heldByAStage, follower);
        assertEquals(expected, heldByAStage.canonicalDump());
        heldByAStage.checkInvariants();
        assertEquals(17, heldByAStage.lastZxid());
        assertArrayEquals("a2".getBytes(), heldByAStage.getData("/a").data());
        assertNull(heldByAStage.exists("/e"));
        assertEquals(List.of(), heldByAStage.ephemerals(S1));
        assertNull(heldByAStage.session(S1));
        assertEquals(List.of(new WatchTrigger("/same", WatchedEvent.Type.NODE_DELETED, 17),
                new WatchTrigger("/e", WatchedEvent.Type.NODE_DELETED, 17),
                new WatchTrigger("/a/x", WatchedEvent.Type.NODE_DELETED, 17),
                new WatchTrigger("/b/y", WatchedEvent.Type.NODE_CREATED, 17),
                new WatchTrigger("/c/k2", WatchedEvent.Type.NODE_CREATED, 17),
                new WatchTrigger("/same", WatchedEvent.Type.NODE_CREATED, 17),
                new WatchTrigger("/a", WatchedEvent.Type.NODE_DATA_CHANGED, 17),
                new WatchTrigger("/", WatchedEvent.Type.NODE_CHILDREN_CHANGED, 17),
                new WatchTrigger("/a", WatchedEvent.Type.NODE_CHILDREN_CHANGED, 17),
                new WatchTrigger("/b", WatchedEvent.Type.NODE_CHILDREN_CHANGED, 17),
                new WatchTrigger("/c", WatchedEvent.Type.NODE_CHILDREN_CHANGED, 17)), r.triggers());
        assertEquals(List.of(new SessionInfo(S3, 20_000, new byte[] {3})), r.sessionsAdded());
        assertEquals(List.of(S1), r.sessionsRemoved());

        // the leader's next txns apply on it as on the leader's own tree
        List<Txn> next = List.of(new Txn.CreateNode("/c/k3", new byte[0], 0, false, 3),
                new Txn.DeleteNode("/b/y"));
        for (int i = 0; i < next.size(); i++) {
            heldByAStage.apply(new TxnHeader(18 + i, 1018 + i, 0, 0), next.get(i));
        }
        assertEquals(applied(List.of(common(), later(), next)).canonicalDump(), heldByAStage.canonicalDump());
        heldByAStage.checkInvariants();
    }

    @Test
    void watchersOfChangedNodesHearOfTheInstall() throws IOException {
        DataTree follower = applied(List.of(common()));
        WatchTable watches = new WatchTable();
        watches.addDataWatch(S2, "/a");          // data changed
        watches.addChildWatch(S2, "/b");         // a child appeared
        watches.addExistsWatch(S3, "/b/y");      // created
        watches.addDataWatch(S3, "/c/k");        // unchanged: stays armed
        List<WatchDelivery> delivered = watches.trigger(
                follower.replaceWith(throughSnapshot(applied(List.of(common(), later())))).triggers());
        List<String> seen = new ArrayList<>();
        delivered.forEach(d -> seen.add(Long.toHexString(d.sessionId()) + " " + d.event().type() + " "
                + d.event().path()));
        assertEquals(List.of("103 NODE_CREATED /b/y", "102 NODE_DATA_CHANGED /a", "102 NODE_CHILDREN_CHANGED /b"),
                seen);
        assertEquals(1, watches.size());
    }

    @Test
    void anIdenticalTreeChangesNothingAndATreeCannotReplaceItself() throws IOException {
        DataTree follower = applied(List.of(common()));
        String before = follower.canonicalDump();
        Replacement r = follower.replaceWith(throughSnapshot(applied(List.of(common()))));
        assertEquals(List.of(), r.triggers());
        assertEquals(List.of(), r.sessionsAdded());
        assertEquals(List.of(), r.sessionsRemoved());
        assertEquals(before, follower.canonicalDump());
        assertThrows(IllegalArgumentException.class, () -> follower.replaceWith(follower));
    }

    @Test
    void anOlderFollowerTreeWithNodesTheSnapshotLacksLosesThem() throws IOException {
        // the follower applied the common prefix plus a node the snapshot's history deleted again
        DataTree follower = applied(List.of(common(), List.of(new Txn.CreateNode("/a/x/deep", new byte[0], 0, false,
                1))));
        DataTree snapshot = applied(List.of(common(), List.of(new Txn.CreateNode("/a/x/deep", new byte[0], 0, false,
                1), new Txn.DeleteNode("/a/x/deep"), new Txn.DeleteNode("/a/x"))));
        String expected = snapshot.canonicalDump();
        Replacement r = follower.replaceWith(throughSnapshot(snapshot));
        assertEquals(expected, follower.canonicalDump());
        follower.checkInvariants();
        assertEquals(List.of(new WatchTrigger("/a/x/deep", WatchedEvent.Type.NODE_DELETED, 12),
                new WatchTrigger("/a/x", WatchedEvent.Type.NODE_DELETED, 12),
                new WatchTrigger("/a", WatchedEvent.Type.NODE_CHILDREN_CHANGED, 12)), r.triggers());
    }
}
