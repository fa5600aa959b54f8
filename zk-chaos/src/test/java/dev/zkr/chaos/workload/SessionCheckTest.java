package dev.zkr.chaos.workload;

import dev.zkr.chaos.history.Op;
import dev.zkr.chaos.workload.SessionCheck.Fate;
import dev.zkr.chaos.workload.SessionCheck.Session;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link SessionCheck} on hand-built observations and histories: valid ones, and one per bug it claims to catch. */
class SessionCheckTest {

    private static final Session ALIVE = new Session("a1", Fate.ALIVE, Set.of("e-0", "e-1"), Set.of("e-3"),
            Set.of("e-0", "e-1", "e-2", "e-3"));
    private static final Session EXPIRED = new Session("b2", Fate.EXPIRED, Set.of("e-0"), Set.of(), Set.of("e-0"));
    private static final Session CLOSED = new Session("c3", Fate.CLOSED, Set.of("e-0"), Set.of(), Set.of("e-0"));
    private static final Session UNDECIDED = new Session("d4", Fate.UNDECIDED, Set.of("e-0"), Set.of(),
            Set.of("e-0"));

    /** Three servers with the same view; e-2 (indeterminate create) applied. */
    private static Map<Integer, Map<String, Set<String>>> servers(Map<String, Set<String>> view) {
        Map<Integer, Map<String, Set<String>>> m = new LinkedHashMap<>();
        for (int id = 1; id <= 3; id++) {
            m.put(id, view);
        }
        return m;
    }

    private static Map<String, Set<String>> good() {
        return new LinkedHashMap<>(Map.of("a1", Set.of("e-0", "e-1", "e-2"), "b2", Set.of(), "c3", Set.of(),
                "d4", Set.of("e-0")));
    }

    private static final List<Session> ALL = List.of(ALIVE, EXPIRED, CLOSED, UNDECIDED);

    @Test
    void validEphemerals() {
        assertEquals(List.of(), SessionCheck.ephemerals(ALL, servers(good())));
        Map<String, Set<String>> undecidedGone = good();
        undecidedGone.put("d4", Set.of());
        assertEquals(List.of(), SessionCheck.ephemerals(ALL, servers(undecidedGone)));
    }

    @Test
    void aliveSessionLostAnEphemeral() {
        Map<Integer, Map<String, Set<String>>> s = servers(good());
        Map<String, Set<String>> onTwo = good();
        onTwo.put("a1", Set.of("e-0", "e-2"));
        s.put(2, onTwo);
        List<String> a = SessionCheck.ephemerals(ALL, s);
        assertTrue(a.stream().anyMatch(x -> x.contains("session 0xa1 (alive) lost acknowledged ephemerals on server 2: "
                + "[e-1]")), a::toString);
        assertTrue(a.stream().anyMatch(x -> x.contains("servers disagree")), a::toString);
    }

    @Test
    void expiredSessionKeepsAnEphemeral() {
        Map<String, Set<String>> v = good();
        v.put("b2", Set.of("e-0"));
        List<String> a = SessionCheck.ephemerals(ALL, servers(v));
        assertEquals(3, a.size(), a::toString);
        assertTrue(a.get(0).contains("session 0xb2 (expired) still has ephemerals on server 1"), a::toString);
    }

    @Test
    void closedSessionKeepsAnEphemeral() {
        Map<String, Set<String>> v = good();
        v.put("c3", Set.of("e-0"));
        List<String> a = SessionCheck.ephemerals(ALL, servers(v));
        assertEquals(3, a.size(), a::toString);
        assertTrue(a.get(0).contains("session 0xc3 (closed) still has ephemerals"), a::toString);
    }

    @Test
    void ephemeralOfAFailedOrUnknownCreate() {
        Map<String, Set<String>> v = good();
        v.put("a1", Set.of("e-0", "e-1", "e-3", "e-9"));
        List<String> a = SessionCheck.ephemerals(ALL, servers(v));
        assertEquals(6, a.size(), a::toString);
        assertTrue(a.get(0).contains("e-3 on server 1 although its create failed"), a::toString);
        assertTrue(a.get(1).contains("e-9 on server 1 that no create made"), a::toString);
    }

    private static Op op(String f, String session, long t, String zxid) {
        return new Op(0, f, "/k", session, t, t + 1, Op.Status.OK, zxid, null);
    }

    private static List<Op> goodZxids() {
        return new ArrayList<>(List.of(op("read-hot", "a1", 0, "10"), op("create-eph", "a1", 2, "12"),
                op("read-hot", "b2", 3, "5"), // another session may be behind
                op("read-hot", "a1", 4, "10"), op("read-dir", "a1", 6, "12"), op("create-eph", "a1", 8, "20"),
                op("read-dir", "a1", 10, "20"), op("read-hot", "a1", 12, "1f"),
                new Op(0, "read-hot", "/k", "a1", 13, 14, Op.Status.INFO, null, "ConnectionLoss")));
    }

    @Test
    void validZxids() {
        assertEquals(List.of(), SessionCheck.zxids(goodZxids()));
    }

    @Test
    void hotReadGoingBack() {
        List<Op> ops = goodZxids();
        ops.add(op("read-hot", "a1", 20, "1e"));
        List<String> a = SessionCheck.zxids(ops);
        assertEquals(1, a.size(), a::toString);
        assertTrue(a.get(0).contains("session 0xa1 saw read-hot zxid go back from 0x1f to 0x1e"), a::toString);
    }

    @Test
    void createZxidNotIncreasing() {
        List<Op> ops = goodZxids();
        ops.add(op("create-eph", "a1", 20, "20"));
        List<String> a = SessionCheck.zxids(ops);
        assertEquals(1, a.size(), a::toString);
        assertTrue(a.get(0).contains("create-eph zxid go back"), a::toString);
    }

    @Test
    void directoryReadMissingOwnCreate() {
        List<Op> ops = goodZxids();
        ops.add(op("create-eph", "a1", 20, "30"));
        ops.add(op("read-dir", "a1", 22, "20"));
        List<String> a = SessionCheck.zxids(ops);
        assertEquals(1, a.size(), a::toString);
        assertTrue(a.get(0).contains("read its directory at pzxid 0x20 after its create at czxid 0x30"), a::toString);
    }

    @Test
    void directoryReadGoingBack() {
        List<Op> ops = goodZxids();
        ops.add(op("read-dir", "a1", 22, "15"));
        List<String> a = SessionCheck.zxids(ops);
        assertTrue(a.stream().anyMatch(x -> x.contains("read-dir zxid go back from 0x20 to 0x15")), a::toString);
    }
}
