package dev.zkr.check;

import static dev.zkr.check.SessionReply.read;
import static dev.zkr.check.SessionReply.write;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class DurabilityCheckerTest {

    private static final Znode A0 = Znode.present("a", 0);
    private static final Znode B1 = Znode.present("b", 1);

    private static final List<LogEntry> LOG = List.of(
            new LogEntry(10, "/n", "create", A0),
            new LogEntry(20, "/n", "setData", B1),
            new LogEntry(30, "/n", "delete", Znode.ABSENT));

    private static Findings check(SessionReply... replies) {
        return DurabilityChecker.check(LOG, List.of(replies));
    }

    @Test
    void acknowledgedWritesInTheLogInRequestOrderPass() {
        Findings findings = check(
                write(1, 1, "/n", 10, A0),
                write(2, 1, "/n", 20, B1),
                read(1, 2, "/n", 20, B1),
                write(1, 3, "/n", 30, Znode.ABSENT),
                write(2, 2, "/n", 20, null));
        assertTrue(findings.ok(), findings::describe);
    }

    @Test
    void anAcknowledgedWriteMissingFromTheLogIsAViolation() {
        Findings findings = check(write(1, 1, "/n", 40, Znode.present("c", 2)));
        assertEquals(1, findings.violations().size());
        assertTrue(findings.violations().get(0).contains("not in the committed log"), findings::describe);
    }

    @Test
    void anAcknowledgedWriteOnAnotherPathOrWithOtherContentIsAViolation() {
        assertEquals(1, check(write(1, 1, "/other", 10, A0)).violations().size());
        Findings findings = check(write(1, 1, "/n", 20, Znode.present("c", 1)));
        assertTrue(findings.violations().get(0).contains("setData"), findings::describe);
    }

    @Test
    void repliesOutOfRequestOrderAreAViolation() {
        Findings findings = check(read(1, 2, "/n", 20, B1), write(1, 1, "/n", 10, A0));
        assertEquals(1, findings.violations().size(), findings::describe);
        assertTrue(findings.violations().get(0).contains("out of request order"));
        assertTrue(check(read(1, 2, "/n", 20, B1), read(2, 1, "/n", 10, A0)).ok());
    }
}
