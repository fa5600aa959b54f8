package dev.zkr.session;

import dev.zkr.tree.SessionInfo;
import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SessionTableTest {
    private static final byte[] SECRET = {42, 43, 44};

    private SessionTable table(long serverId, long start) {
        return new SessionTable(SessionTable.Config.ofTick(serverId, 2000), start, SECRET);
    }

    @Test
    void negotiatesWithinBounds() {
        SessionTable t = table(1, 0);
        assertEquals(4000, t.negotiateTimeout(1));
        assertEquals(4000, t.negotiateTimeout(-5));
        assertEquals(10_000, t.negotiateTimeout(10_000));
        assertEquals(40_000, t.negotiateTimeout(1_000_000));
    }

    @Test
    void idsCarryServerIdAndDifferAcrossRestarts() {
        SessionTable a = table(3, 1_700_000_000_000L);
        long id1 = a.nextSessionId();
        long id2 = a.nextSessionId();
        assertEquals(id1 + 1, id2);
        assertEquals(3, id1 >>> 56);
        SessionTable restarted = table(3, 1_700_000_005_000L);
        Set<Long> ids = new HashSet<>();
        for (int i = 0; i < 1000; i++) {
            ids.add(a.nextSessionId());
        }
        for (int i = 0; i < 1000; i++) {
            assertTrue(ids.add(restarted.nextSessionId()));
        }
        assertNotEquals(table(4, 0).nextSessionId() >>> 56, table(3, 0).nextSessionId() >>> 56);
        assertNotEquals(0, table(0, 0).nextSessionId());
    }

    @Test
    void passwordsAreDeterministicPerSecretAndCheckedExactly() {
        SessionTable t = table(1, 0);
        long id = t.nextSessionId();
        byte[] pw = t.passwordFor(id);
        assertEquals(16, pw.length);
        assertArrayEquals(pw, t.passwordFor(id));
        assertFalse(java.util.Arrays.equals(pw, t.passwordFor(id + 1)));
        assertFalse(java.util.Arrays.equals(pw,
                new SessionTable(SessionTable.Config.ofTick(1, 2000), 0, new byte[] {1}).passwordFor(id)));
        t.add(id, 4000, pw, 0);
        assertTrue(t.checkPassword(id, pw));
        byte[] wrong = pw.clone();
        wrong[0] ^= 1;
        assertFalse(t.checkPassword(id, wrong));
        assertFalse(t.checkPassword(id, null));
        assertFalse(t.checkPassword(id + 1, pw));
    }

    @Test
    void deadlinesAndExpiry() {
        SessionTable t = table(1, 0);
        t.add(1, 4000, new byte[0], 1000);
        t.add(2, 6000, new byte[0], 1000);
        assertEquals(5000, t.deadlineOf(1));
        assertEquals(5000, t.nextDeadline());
        assertEquals(List.of(), t.expired(4999));
        assertTrue(t.touch(1, 3000));
        assertEquals(7000, t.deadlineOf(1));
        assertEquals(List.of(), t.expired(6999));
        assertEquals(List.of(1L, 2L), t.expired(7000));
        assertEquals(List.of(), t.expired(100_000), "reported once");
        assertFalse(t.touch(1, 7001), "closing sessions cannot be revived");
        assertFalse(t.isActive(1));
        assertEquals(Long.MAX_VALUE, t.nextDeadline());
        t.remove(1);
        assertEquals(-1, t.timeoutOf(1));
        assertEquals(1, t.size());
        assertFalse(t.touch(99, 0));
    }

    @Test
    void touchNeverShortensDeadline() {
        SessionTable t = table(1, 0);
        t.add(1, 4000, new byte[0], 10_000);
        assertTrue(t.touch(1, 5_000));
        assertEquals(14_000, t.deadlineOf(1));
    }

    @Test
    void explicitCloseMarksClosing() {
        SessionTable t = table(1, 0);
        t.add(1, 4000, new byte[0], 0);
        assertTrue(t.markClosing(1));
        assertFalse(t.markClosing(1));
        assertEquals(List.of(), t.expired(1_000_000), "already closing: the server handles it");
    }

    @Test
    void restoreGivesFreshDeadlines() {
        SessionTable t = table(1, 0);
        t.restore(List.of(new SessionInfo(10, 5000, new byte[] {1}), new SessionInfo(11, 8000, new byte[] {2})),
                100_000);
        assertEquals(105_000, t.deadlineOf(10));
        assertEquals(8000, t.timeoutOf(11));
        assertTrue(t.checkPassword(11, new byte[] {2}));
    }

    @Test
    void badConfigIsRejected() {
        assertThrows(IllegalArgumentException.class, () -> new SessionTable.Config(256, 1, 2));
        assertThrows(IllegalArgumentException.class, () -> new SessionTable.Config(1, 5, 2));
        assertThrows(IllegalArgumentException.class, () -> table(1, 0).add(1, 0, new byte[0], 0));
    }
}
