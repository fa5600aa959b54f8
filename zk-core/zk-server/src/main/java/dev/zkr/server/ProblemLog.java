package dev.zkr.server;

import org.slf4j.Logger;

import java.util.ArrayList;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * The server's log of per-connection problems (refused, closed, bad input): WARN lines, rate-limited per kind of
 * problem so that a flood of bad connections cannot fill the disk — at most {@link #LINES_PER_WINDOW} lines of a
 * kind per {@link #WINDOW_SECONDS} s, then one line "N more &lt;kind&gt; in the last T s, suppressed".
 */
public final class ProblemLog {

    public static final int LINES_PER_WINDOW = 10;
    public static final int WINDOW_SECONDS = 10;

    private final Logger log;
    private final LongSupplier nanoClock;
    private final LogThrottle throttle;

    ProblemLog(Logger log, LongSupplier nanoClock, int linesPerWindow, long windowNanos) {
        this.log = log;
        this.nanoClock = nanoClock;
        this.throttle = new LogThrottle(linesPerWindow, windowNanos);
    }

    /** The server's: {@link #LINES_PER_WINDOW} lines per kind per {@link #WINDOW_SECONDS} s, wall clock. */
    public static ProblemLog server(Logger log) {
        return new ProblemLog(log, System::nanoTime, LINES_PER_WINDOW, WINDOW_SECONDS * 1_000_000_000L);
    }

    /** Logs one WARN line of this kind ({@code slf4j} format) unless the kind is over its rate. */
    public void warn(String kind, String format, Object... args) {
        List<LogThrottle.Suppressed> summaries = new ArrayList<>(0);
        boolean admitted = throttle.admit(kind, nanoClock.getAsLong(), summaries);
        summaries.forEach(this::summary);
        if (admitted) {
            log.warn(format, args);
        }
    }

    /** Logs the summary of every kind whose window is over and held lines back (a periodic task calls this). */
    public void flush() {
        throttle.due(nanoClock.getAsLong()).forEach(this::summary);
    }

    private void summary(LogThrottle.Suppressed s) {
        log.warn("{} more {} in the last {} s, suppressed", s.count(), s.kind(),
                String.format(java.util.Locale.ROOT, "%.1f", s.nanos() / 1e9));
    }
}
