package dev.zkr.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * The role lines one ensemble member has printed so far, each with the runner's {@link System#nanoTime()} at its
 * arrival (its output is read through a pipe as it is written). Fed by {@link ServerProcess.OutputListener}; kept
 * across restarts of the member.
 */
final class RoleLog implements ServerProcess.OutputListener {

    /** One role line and when it arrived. */
    record Event(long nanos, RoleLine role) {
    }

    private final Function<String, Optional<RoleLine>> parser;
    private final List<Event> events = new ArrayList<>();
    private long lines;
    private String lastLine;

    RoleLog(Function<String, Optional<RoleLine>> parser) {
        this.parser = parser;
    }

    @Override
    public void line(long nanos, String line) {
        Optional<RoleLine> role = parser.apply(line);
        synchronized (this) {
            lines++;
            lastLine = line;
            role.ifPresent(r -> events.add(new Event(nanos, r)));
        }
    }

    /** The newest role line, if any. */
    synchronized Optional<Event> last() {
        return events.isEmpty() ? Optional.empty() : Optional.of(events.get(events.size() - 1));
    }

    /** Role lines that arrived at or after {@code nanos}, oldest first. */
    synchronized List<Event> since(long nanos) {
        return events.stream().filter(e -> e.nanos() >= nanos).toList();
    }

    /** How many lines of output (of any kind) have arrived: 0 hints at a missing logging binding. */
    synchronized long lines() {
        return lines;
    }

    /** The newest line of output of any kind, or null. */
    synchronized String lastLine() {
        return lastLine;
    }
}
