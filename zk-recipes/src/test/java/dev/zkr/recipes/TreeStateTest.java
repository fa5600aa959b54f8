package dev.zkr.recipes;

import dev.zkr.client.NodeData;
import dev.zkr.client.Stat;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The tree cache's copy as pure logic: facts in, events out (orders no server can be made to produce on demand). */
class TreeStateTest {

    private static NodeData node(long czxid, long mzxid, String data) {
        byte[] bytes = data.getBytes(StandardCharsets.UTF_8);
        return new NodeData(bytes, new Stat(czxid, mzxid, czxid, 0, 0, (int) (mzxid - czxid), 0, 0, 0,
                bytes.length, 0));
    }

    private static List<String> described(List<CacheEvent> events) {
        return events.stream().map(e -> e.type() + " " + e.path()).toList();
    }

    @Test
    void anOlderAnswerNeverTakesTheCopyBack() {
        TreeState s = new TreeState("/r", Long.MAX_VALUE);
        s.present("/r", node(1, 1, "r"));
        assertEquals(List.of("CHANGED /r"), described(s.present("/r", node(1, 5, "new"))));
        assertEquals(List.of(), s.present("/r", node(1, 3, "old")), "an older version is ignored");
        assertEquals("new", new String(s.local("/r").orElseThrow().data(), StandardCharsets.UTF_8));
        assertEquals(List.of(), s.present("/r", node(0, 9, "older incarnation")));
        assertEquals(5, s.stat("/r").orElseThrow().mzxid());
    }

    @Test
    void aRecreatedNodeIsDeletedWithItsSubtreeThenCreated() {
        TreeState s = new TreeState("/r", Long.MAX_VALUE);
        s.present("/r", node(1, 1, ""));
        s.present("/r/a", node(2, 2, "a"));
        s.present("/r/a/x", node(3, 3, "x"));
        assertEquals(List.of("DELETED /r/a/x", "DELETED /r/a", "CREATED /r/a"),
                described(s.present("/r/a", node(7, 7, "a again"))));
        assertEquals(List.of("a"), s.childrenOf("/r"));
        assertEquals(List.of(), s.childrenOf("/r/a"));
    }

    @Test
    void absenceRemovesTheSubtreeDeepestFirstAndAListingRemovesWhatItLacks() {
        TreeState s = new TreeState("/r", Long.MAX_VALUE);
        s.present("/r", node(1, 1, ""));
        s.present("/r/a", node(2, 2, ""));
        s.present("/r/a/x", node(3, 3, ""));
        s.present("/r/b", node(4, 4, ""));
        assertEquals(List.of("DELETED /r/b"), described(s.children("/r", List.of("a", "c"))));
        assertEquals(List.of("DELETED /r/a/x", "DELETED /r/a", "DELETED /r"), described(s.absent("/r")));
        assertEquals(0, s.size());
        assertEquals(List.of(), s.absent("/r"), "absent again: nothing to report");
    }

    @Test
    void aNodeWhoseParentIsUnknownWaitsForTheParent() {
        TreeState s = new TreeState("/r", Long.MAX_VALUE);
        assertEquals(List.of(), s.present("/r/a", node(2, 2, "")));
        assertEquals(0, s.size());
        assertTrue(s.covers("/r/a") && s.covers("/r") && !s.covers("/rx") && !s.covers("/"));
    }

    @Test
    void dataBeyondTheBoundIsEvictedAndTheStatStays() {
        TreeState s = new TreeState("/r", 10);
        s.present("/r", node(1, 1, ""));
        for (int i = 0; i < 5; i++) {
            s.present("/r/n" + i, node(2 + i, 2 + i, "12345"));
        }
        assertTrue(s.dataBytes() <= 10, "holds " + s.dataBytes());
        assertEquals(6, s.size());
        long held = List.of(0, 1, 2, 3, 4).stream().filter(i -> s.local("/r/n" + i).isPresent()).count();
        assertTrue(held <= 2, held + " held");
        for (int i = 0; i < 5; i++) {
            assertEquals(5, s.stat("/r/n" + i).orElseThrow().dataLength());
        }
        NodeData reread = node(2, 2, "12345");
        s.reread("/r/n0", reread);
        assertTrue(s.local("/r/n0").isPresent() || s.dataBytes() <= 10);
        s.reread("/r/n1", node(3, 9, "newer")); // newer than the copy: not kept as this version's data
        assertTrue(s.local("/r/n1").map(d -> d.stat().mzxid() == 3).orElse(true));
    }

    @Test
    void aPathWithAnEmptyNameFindsNothing() {
        TreeState s = new TreeState("/r", Long.MAX_VALUE);
        s.present("/r", node(1, 1, ""));
        s.present("/r/a", node(2, 2, "a"));
        assertTrue(s.stat("/r/a").isPresent());
        assertTrue(s.stat("/r/").isEmpty() && s.stat("/r//a").isEmpty() && s.stat("/r/a/").isEmpty());
        assertEquals(List.of(), s.present("/x/a", node(3, 3, "")), "outside the root: ignored");
        assertEquals(List.of("a"), s.childrenOf("/r"));
    }
}
