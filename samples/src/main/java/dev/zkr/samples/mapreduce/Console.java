package dev.zkr.samples.mapreduce;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;

/** The run's output: lines stamped with the time since the start, also kept for the result. */
final class Console {

    private final PrintStream out;
    private final long t0 = System.nanoTime();
    private final List<String> lines = new ArrayList<>();

    Console(PrintStream out) {
        this.out = out;
    }

    /** Seconds since the start. */
    double elapsed() {
        return (System.nanoTime() - t0) / 1e9;
    }

    /** A line stamped with the elapsed time. */
    synchronized void event(String format, Object... args) {
        String line = String.format("[%6.2fs] ", elapsed()) + String.format(format, args);
        lines.add(line);
        if (out != null) {
            out.println(line);
            out.flush();
        }
    }

    /** A line as is. */
    synchronized void plain(String format, Object... args) {
        String line = String.format(format, args);
        lines.add(line);
        if (out != null) {
            out.println(line);
            out.flush();
        }
    }

    synchronized List<String> lines() {
        return List.copyOf(lines);
    }
}
