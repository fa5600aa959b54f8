package dev.zkr.chaos.history;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.Predicate;

/** The operations of one run, appended by many workers; times are nanoseconds since {@link #origin()}. */
public final class History {

    private final long origin;
    private final List<Op> ops = new ArrayList<>();
    private final History parent;

    public History(long originNanos) {
        this(originNanos, null);
    }

    private History(long originNanos, History parent) {
        this.origin = originNanos;
        this.parent = parent;
    }

    /** A history with the same time origin whose operations are also added to this one (one workload's part). */
    public History child() {
        return new History(origin, this);
    }

    /** The {@link System#nanoTime()} that is time 0 of this run. */
    public long origin() {
        return origin;
    }

    /** Now, in this history's time. */
    public long now() {
        return System.nanoTime() - origin;
    }

    public void add(Op op) {
        synchronized (this) {
            ops.add(op);
        }
        if (parent != null) {
            parent.add(op);
        }
    }

    /** A snapshot of every operation so far, in invocation order. */
    public synchronized List<Op> ops() {
        List<Op> copy = new ArrayList<>(ops);
        copy.sort(Comparator.comparingLong(Op::invoke));
        return copy;
    }

    public List<Op> ops(Predicate<Op> which) {
        return ops().stream().filter(which).toList();
    }

    /** Writes one JSON object per line. */
    public void write(Path file) {
        try (Writer w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            for (Op op : ops()) {
                w.write(op.toJson());
                w.write('\n');
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
