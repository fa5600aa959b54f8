package dev.zkr.check;

import static dev.zkr.check.SessionReply.read;
import static dev.zkr.check.SessionReply.write;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class SequentialConsistencyCheckerTest {

    private static final Znode A0 = Znode.present("a", 0);
    private static final Znode B1 = Znode.present("b", 1);

    /** /n created at 10, set to b at 20, deleted at 30; /m created at 20 in the same txn (a multi). */
    private static final List<LogEntry> LOG = List.of(
            new LogEntry(10, "/n", "create", A0),
            new LogEntry(20, "/n", "setData", B1),
            new LogEntry(20, "/m", "create", Znode.present("m", 0)),
            new LogEntry(30, "/n", "delete", Znode.ABSENT));

    private static Findings check(SessionReply... replies) {
        return SequentialConsistencyChecker.check(LOG, List.of(replies));
    }

    @Test
    void readsReturningTheStateAtTheirZxidAreConsistent() {
        Findings findings = check(
                read(1, 1, "/n", 5, Znode.ABSENT),
                read(1, 2, "/n", 15, A0),
                read(2, 1, "/n", 10, A0),
                read(2, 2, "/m", 25, Znode.present("m", 0)),
                read(1, 3, "/n", 20, B1),
                read(2, 3, "/n", 30, Znode.ABSENT));
        assertTrue(findings.ok(), findings::describe);
    }

    @Test
    void aReadWhoseValueIsNotTheStateAtItsZxidIsAViolation() {
        Findings findings = check(read(1, 1, "/n", 20, A0));
        assertEquals(Verdict.VIOLATION, findings.verdict());
        assertTrue(findings.violations().get(0).contains("'b'@v1"), findings::describe);
    }

    @Test
    void aSessionGoingBackInTimeIsAViolationEvenWithCorrectValues() {
        Findings findings = check(read(1, 1, "/n", 20, B1), read(1, 2, "/n", 15, A0));
        assertEquals(1, findings.violations().size(), findings::describe);
        assertTrue(findings.violations().get(0).contains("back in time"));
    }

    @Test
    void aReadOlderThanTheSessionsOwnWriteIsAViolation() {
        Findings findings = check(write(1, 1, "/n", 20, B1), read(1, 2, "/n", 10, A0));
        assertEquals(1, findings.violations().size(), findings::describe);
    }

    @Test
    void otherSessionsMayLagBehind() {
        assertTrue(check(write(1, 1, "/n", 20, B1), read(2, 1, "/n", 10, A0)).ok());
    }

    @Test
    void aReadServedBeyondTheCommittedLogIsAViolation() {
        Findings findings = check(read(1, 1, "/n", 31, Znode.ABSENT));
        assertTrue(findings.violations().get(0).contains("never reached"), findings::describe);
    }

    @Test
    void aLogOutOfZxidOrderIsRefused() {
        List<LogEntry> unordered = List.of(LOG.get(1), LOG.get(0));
        assertThrows(IllegalArgumentException.class, () -> SequentialConsistencyChecker.check(unordered, List.of()));
    }
}
