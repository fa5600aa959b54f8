package dev.zkr.cli.inspect;

import dev.zkr.cli.inspect.BarrierLayout.BarrierReport;
import dev.zkr.cli.inspect.CounterLayout.CounterReport;
import dev.zkr.cli.inspect.ElectionLayout.LeaderReport;
import dev.zkr.cli.inspect.LockLayout.LockNode;
import dev.zkr.cli.inspect.LockLayout.LockReport;
import dev.zkr.cli.inspect.QueueLayout.QueueReport;
import dev.zkr.client.Stat;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The pure layout readers on hand-made nodes: no server. */
class LayoutsTest {

    private static final String UUID = "0b3f6a7e-8c1d-4e2f-9a5b-6c7d8e9f0a1b";

    private static Znode node(String name, String data, long czxid, long owner) {
        return node(name, data.getBytes(StandardCharsets.UTF_8), czxid, owner, 0, 0);
    }

    private static Znode node(String name, byte[] data, long czxid, long owner, int cversion, int numChildren) {
        Stat s = new Stat(czxid, czxid, czxid, 1000 + czxid, 1000 + czxid, 0, cversion, 0, owner, data.length,
                numChildren);
        return new Znode(name, data, s);
    }

    private static String prot(String base, int seq) {
        return "_c_" + UUID + "-" + base + String.format("%010d", seq);
    }

    @Test
    void namesStripTheProtectedPrefixAndSequence() {
        assertEquals("lock-", Names.base(prot("lock-", 7)));
        assertEquals("latch-", Names.base("latch-0000000003"));
        assertEquals(7, Names.sequence(prot("lock-", 7)));
        assertEquals(-1, Names.sequence("ready"));
    }

    @Test
    void mutexHolderIsTheLowestSequenceWhateverTheListingOrder() {
        List<Znode> children = List.of(node(prot("lock-", 12), "", 0x30, 3), node(prot("lock-", 10), "revoke", 0x10, 1),
                node(prot("lock-", 11), "", 0x20, 2), node("unrelated", "", 0x5, 0));
        LockReport r = LockLayout.read(children);
        assertEquals("mutex", r.kind());
        assertEquals(1, r.holders().size());
        LockNode h = r.holders().get(0);
        assertEquals(1, h.session());
        assertEquals(0x10, h.fencingToken());
        assertTrue(h.revokeRequested());
        assertEquals(List.of(2L, 3L), r.waiters().stream().map(LockNode::session).toList());
    }

    @Test
    void readWriteHoldersAreTheReadersAheadOfTheFirstWriterOrTheWriterAlone() {
        LockReport readers = LockLayout.read(List.of(node(prot("read-", 1), "", 1, 1), node(prot("read-", 2), "", 2, 2),
                node(prot("write-", 3), "", 3, 3), node(prot("read-", 4), "", 4, 4)));
        assertEquals("read-write", readers.kind());
        assertEquals(List.of(1L, 2L), readers.holders().stream().map(LockNode::session).toList());
        assertEquals(List.of("write", "read"), readers.waiters().stream().map(LockNode::side).toList());

        LockReport writer = LockLayout.read(List.of(node(prot("write-", 5), "", 5, 5), node(prot("read-", 6), "", 6, 6)));
        assertEquals(List.of(5L), writer.holders().stream().map(LockNode::session).toList());
        assertEquals(1, writer.waiters().size());

        assertTrue(LockLayout.read(List.of()).isEmpty());
        assertFalse(LockLayout.hasLockNodes(List.of(node("ready", "", 1, 0))));
    }

    @Test
    void fairElectionLeaderIsTheFirstLatchNode() {
        LeaderReport r = ElectionLayout.fair(List.of(node(prot("latch-", 4), "b", 0x40, 2),
                node(prot("latch-", 2), "a", 0x20, 1)));
        assertEquals("fair", r.mode());
        assertEquals("a", r.leader().id());
        assertEquals(0x20, r.fencingToken());
        assertEquals(List.of("a", "b"), r.participants().stream().map(ElectionLayout.Participant::id).toList());
        assertNull(ElectionLayout.fair(List.of()).leader());
    }

    @Test
    void unfairElectionListsTheLeaderFirstOnce() {
        Znode leader = node("leader", "x", 0x50, 7);
        LeaderReport r = ElectionLayout.unfair(leader, List.of(node("m-2", "y", 0x30, 8), node("m-1", "x", 0x10, 7)));
        assertEquals("x", r.leader().id());
        assertEquals(0x50, r.fencingToken());
        assertEquals(List.of("x", "y"), r.participants().stream().map(ElectionLayout.Participant::id).toList());
        assertTrue(ElectionLayout.isUnfair(List.of(node("members", "", 1, 0))));
        LeaderReport none = ElectionLayout.unfair(null, List.of(node("m-1", "y", 0x30, 8)));
        assertNull(none.leader());
        assertEquals(-1, none.fencingToken());
    }

    @Test
    void doubleBarrierStates() {
        BarrierReport entering = BarrierLayout.doubleBarrier(List.of(node("w2", "", 2, 2), node("w1", "", 1, 1)), 3);
        assertEquals("entering", entering.state());
        assertEquals(1, entering.missing());
        assertEquals("w1", entering.present().get(0).id());

        List<Znode> open = List.of(node("w1", "lowest", 1, 1), node("w2", "", 2, 2), node("w3", "", 3, 3),
                node("ready", "", 4, 0));
        assertEquals("open", BarrierLayout.doubleBarrier(open, 3).state());
        assertEquals(0, BarrierLayout.doubleBarrier(open, 3).left());
        assertTrue(BarrierLayout.doubleBarrier(open, null).present().get(0).markedLowest());
        assertNull(BarrierLayout.doubleBarrier(open, null).left());

        BarrierReport leaving = BarrierLayout.doubleBarrier(List.of(node("w1", "lowest", 1, 1), node("ready", "", 4, 0)), 3);
        assertEquals("leaving", leaving.state());
        assertEquals(2, leaving.left());
        assertEquals(1004, leaving.openSince());

        assertEquals("empty", BarrierLayout.doubleBarrier(List.of(), 3).state());
        assertEquals(9, BarrierLayout.simple(node("gate", "", 1, 9)).owner());
    }

    @Test
    void groupMembersSortedById() {
        List<GroupLayout.GroupMember> m = GroupLayout.read(List.of(node("b", "2", 2, 2), node("a", "1", 1, 1)));
        assertEquals(List.of("a", "b"), m.stream().map(GroupLayout.GroupMember::id).toList());
        assertEquals(1, m.get(0).session());
    }

    @Test
    void queueDepthAgeAndClaims() {
        String i0 = "item-" + UUID + "-0000000000";
        String i1 = "item-" + UUID + "-0000000001";
        String i2 = "item-" + UUID + "-0000000002";
        List<Znode> children = List.of(node(i2, "cc", 30, 0), node(i0, "a", 10, 0), node(i1, "bb", 20, 0),
                node("claim-" + i1, "", 40, 77), node("consumer-" + UUID, "", 5, 88));
        QueueReport r = QueueLayout.read(children, 1010 + 500, 2);
        assertEquals(3, r.depth());
        assertEquals(2, r.unclaimed());
        assertEquals(500, r.oldestAgeMillis());
        assertEquals(1, r.claimed().size());
        assertEquals(i1, r.claimed().get(0).name());
        assertEquals(77, r.claimed().get(0).claimedBy());
        assertEquals(1040, r.claimed().get(0).claimedSince());
        assertEquals(List.of(i0, i1), r.head().stream().map(QueueLayout.Item::name).toList());
        assertEquals(List.of(88L), r.consumers());
        assertEquals(-1, QueueLayout.read(List.of(), 0, 10).oldestAgeMillis());
    }

    @Test
    void counterValueFromBaseC0AndCreates() {
        byte[] data = ByteBuffer.allocate(20).putLong(40).putInt(6).putLong(123).array();
        // 9 creates, 2 children still present: cversion = 2 * 9 - 2 = 16
        CounterReport r = CounterLayout.read(node("value", data, 1, 0, 16, 2), null);
        assertEquals(9, r.creates());
        assertEquals(43, r.value());
        assertEquals(2, r.pending());
        assertEquals(0, r.gateHolder());
        assertEquals(5, CounterLayout.read(node("value", new byte[0], 1, 0, 5, 5), List.of()).value());
        assertEquals(-1, CounterLayout.read(node("value", new byte[0], 1, 0, 0, 0), List.of()).gateHolder());
        assertEquals(12, CounterLayout.read(null, List.of(node("h-ab", "", 1, 12))).gateHolder());
        assertFalse(CounterLayout.read(null, null).initialised());
    }
}
