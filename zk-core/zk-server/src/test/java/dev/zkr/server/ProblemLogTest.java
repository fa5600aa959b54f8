package dev.zkr.server;

import org.junit.jupiter.api.Test;
import org.slf4j.Marker;
import org.slf4j.event.Level;
import org.slf4j.helpers.AbstractLogger;
import org.slf4j.helpers.MessageFormatter;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Rate-limited problem logging: a few lines per kind and window, then one summary of what was held back. */
class ProblemLogTest {

    private static final long SECOND = 1_000_000_000L;

    @Test
    void eachKindGetsItsOwnLinesPerWindowAndTheRestIsCounted() {
        LogThrottle t = new LogThrottle(3, SECOND);
        List<LogThrottle.Suppressed> summaries = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            assertTrue(t.admit("refused", i, summaries));
        }
        assertFalse(t.admit("refused", 10, summaries));
        assertFalse(t.admit("refused", SECOND - 1, summaries));
        assertTrue(t.admit("bad input", SECOND - 1, summaries), "another kind has its own budget");
        assertTrue(summaries.isEmpty());
        assertTrue(t.due(SECOND - 1).isEmpty(), "the window is not over yet");

        // the next line after the window: the summary of the 2 held back comes first, then a fresh window
        assertTrue(t.admit("refused", SECOND + 5, summaries));
        assertEquals(List.of(new LogThrottle.Suppressed("refused", 2, SECOND + 5)), summaries);
        assertTrue(t.admit("refused", SECOND + 6, summaries));
        assertTrue(t.admit("refused", SECOND + 7, summaries));
        assertFalse(t.admit("refused", SECOND + 8, summaries));
        assertEquals(1, summaries.size(), "no summary while the window lasts");
    }

    @Test
    void dueReportsWindowsThatAreOverEvenIfTheFloodStopped() {
        LogThrottle t = new LogThrottle(1, SECOND);
        List<LogThrottle.Suppressed> ignored = new ArrayList<>();
        t.admit("a", 0, ignored);
        t.admit("a", 1, ignored);
        t.admit("a", 2, ignored);
        t.admit("b", 0, ignored);  // b held nothing back: no summary for it
        assertEquals(List.of(new LogThrottle.Suppressed("a", 2, 3 * SECOND)), t.due(3 * SECOND));
        assertTrue(t.due(10 * SECOND).isEmpty(), "reported once");
        assertTrue(t.admit("a", 10 * SECOND, ignored), "a new window after the summary");
        assertTrue(ignored.isEmpty());
    }

    @Test
    void aSteadyFloodLogsAtMostLinesPerWindowPlusOneSummary() {
        AtomicLong now = new AtomicLong();
        List<String> lines = new ArrayList<>();
        ProblemLog log = new ProblemLog(capture(lines), now::get, 5, SECOND);
        // 100,000 refusals over 10 s (one every 100 µs), with the periodic flush every 250 ms
        for (int i = 0; i < 100_000; i++) {
            now.set(i * 100_000L);
            log.warn("refused", "refusing connection {}", i);
            if (i % 2_500 == 0) {
                log.flush();
            }
        }
        now.set(11 * SECOND);
        log.flush();
        long refusals = lines.stream().filter(l -> l.startsWith("refusing connection")).count();
        List<String> summaries = lines.stream().filter(l -> l.contains("suppressed")).toList();
        assertEquals(50, refusals, "5 a second for 10 s");
        assertEquals(10, summaries.size(), "one summary a second");
        long suppressed = summaries.stream().mapToLong(l -> Long.parseLong(l.substring(0, l.indexOf(' ')))).sum();
        assertEquals(100_000 - 50, suppressed, "every line held back is counted once");
        assertTrue(summaries.get(0).matches("\\d+ more refused in the last 1\\.0 s, suppressed"), summaries.get(0));
        assertEquals("refusing connection 0", lines.get(0));
    }

    @Test
    void limitsMustBePositive() {
        assertThrows(IllegalArgumentException.class, () -> new LogThrottle(0, SECOND));
        assertThrows(IllegalArgumentException.class, () -> new LogThrottle(1, 0));
    }

    /** A logger that renders every WARN line into the list. */
    private static org.slf4j.Logger capture(List<String> lines) {
        return new AbstractLogger() {
            @Override
            protected String getFullyQualifiedCallerName() {
                return null;
            }

            @Override
            protected void handleNormalizedLoggingCall(Level level, Marker marker, String msg, Object[] args,
                                                       Throwable t) {
                lines.add(MessageFormatter.basicArrayFormat(msg, args));
            }

            @Override
            public boolean isTraceEnabled() {
                return false;
            }

            @Override
            public boolean isTraceEnabled(Marker marker) {
                return false;
            }

            @Override
            public boolean isDebugEnabled() {
                return false;
            }

            @Override
            public boolean isDebugEnabled(Marker marker) {
                return false;
            }

            @Override
            public boolean isInfoEnabled() {
                return false;
            }

            @Override
            public boolean isInfoEnabled(Marker marker) {
                return false;
            }

            @Override
            public boolean isWarnEnabled() {
                return true;
            }

            @Override
            public boolean isWarnEnabled(Marker marker) {
                return true;
            }

            @Override
            public boolean isErrorEnabled() {
                return true;
            }

            @Override
            public boolean isErrorEnabled(Marker marker) {
                return true;
            }
        };
    }
}
