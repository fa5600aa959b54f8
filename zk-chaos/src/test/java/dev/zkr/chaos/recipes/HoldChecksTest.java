package dev.zkr.chaos.recipes;

import dev.zkr.chaos.history.History;
import dev.zkr.chaos.history.Op;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The recipe checkers on histories built by hand: each catches the bug it claims to, and passes a valid history. */
class HoldChecksTest {

    private final List<Op> ops = new ArrayList<>();

    private static long ms(long ms) {
        return ms * 1_000_000;
    }

    private void acquire(int p, String hold, String role, long invoke, long complete, long token) {
        ops.add(new Op(p, Events.ACQUIRE, hold, role, ms(invoke), ms(complete), Op.Status.OK, Long.toString(token),
                null));
    }

    private void release(int p, String hold, long at) {
        ops.add(new Op(p, Events.RELEASE, hold, null, ms(at), ms(at + 1), Op.Status.OK, null, null));
    }

    private void instant(int p, String f, String key, String arg, long at, String result) {
        ops.add(new Op(p, f, key, arg, ms(at), ms(at), Op.Status.OK, result, null));
    }

    private void conn(int p, String state, long at) {
        instant(p, Events.CONN_STATE, "client", state, at, null);
    }

    private List<String> lockAnomalies(boolean readWrite) {
        List<Hold> holds = Holds.fromLocks(ops);
        List<String> out = new ArrayList<>(HoldChecks.tokensIncreaseAcrossAcquires(holds));
        out.addAll(HoldChecks.describe(HoldChecks.overlaps(holds,
                readWrite ? HoldChecks.READ_WRITE : HoldChecks.EXCLUSIVE)));
        return out;
    }

    private List<String> latchAnomalies() {
        List<Hold> terms = Holds.fromLatches(ops);
        List<String> out = new ArrayList<>(HoldChecks.describe(HoldChecks.overlaps(terms, HoldChecks.EXCLUSIVE)));
        out.addAll(HoldChecks.tokensIncreaseAcrossLeaders(terms));
        return out;
    }

    @Test
    void handoffInOrderIsValid() {
        acquire(0, "0-0", "mutex", 0, 10, 100);
        instant(0, Events.HOLD_STATE, "0-0", "HELD", 10, null);
        release(0, "0-0", 20);
        acquire(1, "1-0", "mutex", 5, 22, 105); // waited for 0-0
        release(1, "1-0", 30);
        acquire(0, "0-1", "mutex", 21, 31, 110);
        release(0, "0-1", 40);
        assertEquals(List.of(), lockAnomalies(false));
    }

    @Test
    void twoValidHoldersAtOnceAreCaught() {
        acquire(0, "0-0", "mutex", 0, 10, 100);
        release(0, "0-0", 30);
        acquire(1, "1-0", "mutex", 5, 20, 105);
        release(1, "1-0", 40);
        List<String> a = lockAnomalies(false);
        assertEquals(1, a.size(), a::toString);
        assertTrue(a.get(0).startsWith("overlapping valid leases"), a.get(0));
        assertTrue(a.get(0).contains("0.020 s to 0.030 s"), a.get(0));
    }

    @Test
    void aHolderWhoseConnectionWasSuspendedOrLeaseUncertainDoesNotOverlap() {
        acquire(0, "0-0", "mutex", 0, 10, 100);
        conn(0, "SUSPENDED", 15);
        conn(0, "LOST", 18);
        conn(0, "CONNECTED", 25); // a new session: the old hold does not come back
        release(0, "0-0", 30);
        acquire(1, "1-0", "mutex", 5, 20, 105);
        instant(1, Events.HOLD_STATE, "1-0", "UNCERTAIN", 35, null);
        release(1, "1-0", 40);
        acquire(2, "2-0", "mutex", 5, 36, 110);
        release(2, "2-0", 50);
        assertEquals(List.of(), lockAnomalies(false));
        // but a reconnect of the same session makes the lease valid again
        instant(1, Events.HOLD_STATE, "1-0", "HELD", 38, null);
        List<String> a = lockAnomalies(false);
        assertEquals(1, a.size(), a::toString);
        assertTrue(a.get(0).contains("0.038 s to 0.040 s"), a.get(0));
    }

    @Test
    void aHolderSuspendedBeforeItsAcquireReturnedIsNotValidUntilReconnected() {
        conn(0, "SUSPENDED", 8);
        acquire(0, "0-0", "mutex", 0, 10, 100);
        conn(0, "RECONNECTED", 25);
        release(0, "0-0", 30);
        acquire(1, "1-0", "mutex", 5, 12, 105);
        release(1, "1-0", 20);
        assertEquals(List.of(), lockAnomalies(false));
        List<Hold> holds = Holds.fromLocks(ops);
        assertEquals(List.of(new Hold.Interval(ms(25), ms(30))), holds.get(0).valid());
        assertTrue(holds.get(0).interrupted());
        assertFalse(holds.get(1).interrupted());
    }

    @Test
    void aTokenBelowOneHandedOutEarlierIsCaught() {
        acquire(0, "0-0", "mutex", 0, 10, 105);
        release(0, "0-0", 20);
        acquire(1, "1-0", "mutex", 25, 30, 100); // invoked after 0-0 completed, lower token
        release(1, "1-0", 40);
        List<String> a = lockAnomalies(false);
        assertEquals(1, a.size(), a::toString);
        assertTrue(a.get(0).startsWith("fencing token went back"), a.get(0));
        // concurrent acquires may complete in any token order: invoked before 0-0 completed
        ops.clear();
        acquire(0, "0-0", "mutex", 0, 10, 105);
        release(0, "0-0", 20);
        acquire(1, "1-0", "mutex", 5, 30, 100);
        release(1, "1-0", 40);
        assertEquals(List.of(), HoldChecks.tokensIncreaseAcrossAcquires(Holds.fromLocks(ops)));
    }

    @Test
    void readersShareButAWriterBesideAnyoneIsCaught() {
        acquire(0, "0-0", "read", 0, 10, 100);
        release(0, "0-0", 30);
        acquire(1, "1-0", "read", 0, 12, 101);
        release(1, "1-0", 35);
        assertEquals(List.of(), lockAnomalies(true));
        acquire(2, "2-0", "write", 1, 20, 102);
        release(2, "2-0", 50);
        List<String> a = lockAnomalies(true);
        assertEquals(2, a.size(), a::toString);
        assertTrue(a.stream().allMatch(l -> l.contains("write 2-0")), a::toString);
    }

    @Test
    void successiveLeadersAreValid() {
        instant(0, Events.ELECTED, "0-0", null, 10, "100");
        ops.add(new Op(0, Events.RESIGN, "0-0", null, ms(20), ms(21), Op.Status.OK, null, null));
        instant(1, Events.ELECTED, "1-0", null, 22, "105");
        conn(1, "SUSPENDED", 30); // leadership uncertain: revoked, then back with the same node
        instant(1, Events.REVOKED, "1-0", null, 31, null);
        conn(1, "RECONNECTED", 35);
        instant(1, Events.ELECTED, "1-0", null, 36, "105");
        instant(1, Events.REVOKED, "1-0", null, 40, null);
        instant(2, Events.ELECTED, "2-0", null, 45, "110");
        instant(2, Events.REVOKED, "2-0", null, 50, null);
        List<Hold> terms = Holds.fromLatches(ops);
        assertEquals(4, terms.size());
        assertEquals(List.of(), latchAnomalies());
    }

    @Test
    void twoLeadersAtOnceAreCaughtUnlessOneWasSuspended() {
        instant(0, Events.ELECTED, "0-0", null, 10, "100");
        instant(0, Events.REVOKED, "0-0", null, 40, null);
        instant(1, Events.ELECTED, "1-0", null, 20, "105");
        ops.add(new Op(1, Events.RESIGN, "1-0", null, ms(30), ms(31), Op.Status.OK, null, null));
        List<String> a = latchAnomalies();
        assertEquals(1, a.size(), a::toString);
        assertTrue(a.get(0).startsWith("overlapping valid leaders"), a.get(0));
        conn(0, "SUSPENDED", 15); // the first leader's connection went before the second was elected
        assertEquals(List.of(), latchAnomalies());
    }

    @Test
    void aLeaderTokenGoingBackIsCaught() {
        instant(0, Events.ELECTED, "0-0", null, 10, "105");
        instant(0, Events.REVOKED, "0-0", null, 20, null);
        instant(1, Events.ELECTED, "1-0", null, 25, "100");
        instant(1, Events.REVOKED, "1-0", null, 30, null);
        List<String> a = latchAnomalies();
        assertEquals(1, a.size(), a::toString);
        assertTrue(a.get(0).startsWith("leader fencing token went back"), a.get(0));
        // the same token for another latch instance is caught too
        ops.clear();
        instant(0, Events.ELECTED, "0-0", null, 10, "105");
        instant(0, Events.REVOKED, "0-0", null, 20, null);
        instant(1, Events.ELECTED, "1-0", null, 25, "105");
        instant(1, Events.REVOKED, "1-0", null, 30, null);
        a = latchAnomalies();
        assertEquals(1, a.size(), a::toString);
        assertTrue(a.get(0).startsWith("two latch instances led with the same token"), a.get(0));
    }

    @Test
    void anElectedReportedAfterTheResignStartsNoTerm() {
        ops.add(new Op(0, Events.RESIGN, "0-0", null, ms(20), ms(21), Op.Status.OK, null, null));
        instant(0, Events.ELECTED, "0-0", null, 22, "100");
        assertEquals(List.of(), Holds.fromLatches(ops));
    }

    @Test
    void theFencedResourceRejectsStaleTokensAndTheWorkloadCountsThem() {
        FencedResource r = new FencedResource();
        assertTrue(r.write(1, 0, 100));
        assertTrue(r.write(2, 0, 100));
        assertTrue(r.write(3, 1, 105));
        assertFalse(r.write(4, 0, 100));
        assertEquals(1, r.rejected());
        assertEquals(105, r.highest());
        assertEquals(4, r.attempts().size());

        LockWorkload lock = new LockWorkload();
        History h = new History(System.nanoTime());
        h.add(new Op(0, Events.ACQUIRE, "0-0", "mutex", ms(0), ms(10), Op.Status.OK, "100", null));
        h.add(new Op(1, Events.ACQUIRE, "1-0", "mutex", ms(5), ms(20), Op.Status.OK, "105", null));
        Events.write(h, lock.resource, 1, "1-0", 105, true);
        Events.write(h, lock.resource, 0, "0-0", 100, true);
        h.add(new Op(0, Events.RELEASE, "0-0", null, ms(30), ms(31), Op.Status.OK, null, null));
        List<String> anomalies = lock.check(h, null);
        assertTrue(anomalies.stream().anyMatch(l -> l.startsWith("overlapping valid leases")), anomalies::toString);
        assertTrue(lock.facts().stream().anyMatch(l -> l.contains("1 rejected as stale (1 of them by a writer whose "
                + "lease was valid)")), lock.facts()::toString);
    }
}
