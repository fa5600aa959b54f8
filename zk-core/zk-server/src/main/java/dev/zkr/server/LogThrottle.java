package dev.zkr.server;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Pure bookkeeping of rate-limited logging: per kind of problem, at most {@code linesPerWindow} lines in each window
 * of {@code windowNanos}; what is held back is counted and reported once the window is over, as one summary. The
 * caller passes the time (a monotonic clock in nanoseconds). Thread-safe: the event loops share one instance.
 */
final class LogThrottle {

    /** What was held back of one kind during a window of {@code nanos}. */
    record Suppressed(String kind, long count, long nanos) {
    }

    private static final class Window {
        long start;
        int logged;
        long suppressed;

        Window(long start) {
            this.start = start;
        }
    }

    private final int linesPerWindow;
    private final long windowNanos;
    private final Map<String, Window> windows = new HashMap<>();

    LogThrottle(int linesPerWindow, long windowNanos) {
        if (linesPerWindow <= 0 || windowNanos <= 0) {
            throw new IllegalArgumentException("linesPerWindow and windowNanos must be positive");
        }
        this.linesPerWindow = linesPerWindow;
        this.windowNanos = windowNanos;
    }

    /**
     * A line of this kind wants to be logged at {@code now}: true if it may be. If the kind's previous window is over
     * and held lines back, their summary is added to {@code summaries} (to be logged before this line).
     */
    synchronized boolean admit(String kind, long now, List<Suppressed> summaries) {
        Window w = windows.get(kind);
        if (w == null) {
            w = new Window(now);
            windows.put(kind, w);
        } else if (now - w.start >= windowNanos) {
            close(kind, w, now, summaries);
        }
        if (w.logged < linesPerWindow) {
            w.logged++;
            return true;
        }
        w.suppressed++;
        return false;
    }

    /** Summaries of every window that is over and held lines back (called periodically, so none waits for long). */
    synchronized List<Suppressed> due(long now) {
        List<Suppressed> summaries = new ArrayList<>();
        for (Map.Entry<String, Window> e : windows.entrySet()) {
            if (e.getValue().suppressed > 0 && now - e.getValue().start >= windowNanos) {
                close(e.getKey(), e.getValue(), now, summaries);
            }
        }
        return summaries;
    }

    private void close(String kind, Window w, long now, List<Suppressed> summaries) {
        if (w.suppressed > 0) {
            summaries.add(new Suppressed(kind, w.suppressed, now - w.start));
        }
        w.start = now;
        w.logged = 0;
        w.suppressed = 0;
    }
}
