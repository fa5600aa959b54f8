package dev.zkr.chaos.report;

import dev.zkr.chaos.RunConfig;
import dev.zkr.chaos.history.History;
import dev.zkr.chaos.history.Op;
import dev.zkr.chaos.nemesis.FaultWindow;
import dev.zkr.chaos.workload.Workload;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The outcome of one run and its directory: {@code history.jsonl} (every operation), {@code faults.jsonl} (every
 * fault window), {@code anomalies.txt} ("valid" or one anomaly per line), {@code timeline.svg} (the picture),
 * {@code summary.txt} (the summary line, the command that repeats the run, notes).
 */
public final class RunReport {

    private final RunConfig config;
    private final Path dir;
    private final List<Op> ops;
    private final List<FaultWindow> faults;
    private final List<String> anomalies;
    private final List<String> notes;
    private final List<String> facts;
    private final long opsChecked;
    private final long indeterminateWrites;
    private final long end;
    private final long[] gaps;
    private final Map<String, List<Long>> gapsByKind = new LinkedHashMap<>();

    /** {@code end}: when the clients were told to stop (nanoseconds since the run's start). */
    public RunReport(RunConfig config, Path dir, History history, long end, List<FaultWindow> faults,
                     List<String> anomalies, List<String> notes, Workload workload) {
        this.config = config;
        this.dir = dir;
        this.ops = history.ops();
        this.faults = faults;
        this.anomalies = List.copyOf(anomalies);
        this.notes = notes;
        this.opsChecked = workload.opsChecked(history);
        this.facts = List.copyOf(workload.facts());
        java.util.Set<String> writeNames = workload.writes();
        this.indeterminateWrites = ops.stream().filter(o -> o.indeterminate() && writeNames.contains(o.f())).count();
        this.end = end;
        long[] writes = Unavailability.writeCompletions(ops, workload.writes());
        this.gaps = new long[faults.size()];
        for (int i = 0; i < faults.size(); i++) {
            FaultWindow f = faults.get(i);
            gaps[i] = Unavailability.longestGap(writes, f, 0, end);
            gapsByKind.computeIfAbsent(f.kind(), k -> new ArrayList<>()).add(gaps[i]);
        }
    }

    public RunConfig config() {
        return config;
    }

    public Path dir() {
        return dir;
    }

    public List<String> anomalies() {
        return anomalies;
    }

    public boolean valid() {
        return anomalies.isEmpty();
    }

    public long opsChecked() {
        return opsChecked;
    }

    /**
     * How many writes ({@link Workload#writes()}) ended indeterminate — may or may not have taken effect:
     * connection loss, session expiry, timeout. The exactly-once figure: zkr's own client re-sends a write whose
     * connection was lost and gets its real outcome, so only a lost session or a call's deadline leaves one.
     */
    public long indeterminateWrites() {
        return indeterminateWrites;
    }

    public int faultsInjected() {
        return faults.size();
    }

    public List<FaultWindow> faults() {
        return faults;
    }

    /** Per fault kind, the longest write gap of each of its windows, in nanoseconds. */
    public Map<String, List<Long>> gapsByKind() {
        return gapsByKind;
    }

    public List<String> notes() {
        return notes;
    }

    /** The workload's counts ({@link Workload#facts()}), as listed in {@code summary.txt}. */
    public List<String> facts() {
        return facts;
    }

    /** One line: system, workload, nemesis, seed, ops, faults, verdict. */
    public String summary() {
        long ok = ops.stream().filter(Op::ok).count();
        long info = ops.stream().filter(Op::indeterminate).count();
        return String.format(Locale.ROOT, "%s %s nemesis=%s servers=%d seed=%d: %d ops (%d ok, %d indeterminate, "
                        + "%d of them writes), %d checked, %d faults, %s", config.system(), config.workload(),
                config.nemesis(), config.servers(), config.seed(), ops.size(), ok, info, indeterminateWrites,
                opsChecked, faults.size(),
                valid() ? "valid" : anomalies.size() + " ANOMALIES");
    }

    public void write() {
        try {
            try (var w = Files.newBufferedWriter(dir.resolve("history.jsonl"), StandardCharsets.UTF_8)) {
                for (Op op : ops) {
                    w.write(op.toJson());
                    w.write('\n');
                }
            }
            StringBuilder f = new StringBuilder();
            for (FaultWindow w : faults) {
                f.append(w.toJson()).append('\n');
            }
            Files.writeString(dir.resolve("faults.jsonl"), f);
            Files.writeString(dir.resolve("anomalies.txt"),
                    valid() ? "valid\n" : String.join("\n", anomalies) + "\n");
            Files.writeString(dir.resolve("timeline.svg"), Timeline.svg(summary(), ops, faults, end));
            StringBuilder s = new StringBuilder(summary()).append("\n\nrepeat: ").append(config.commandLine())
                    .append("\n\nfaults:\n");
            for (int i = 0; i < faults.size(); i++) {
                FaultWindow w = faults.get(i);
                s.append(String.format(Locale.ROOT, "  %7.1f s .. %7.1f s  %-16s %s (longest write gap %.0f ms)%n",
                        w.start() / 1e9, w.end() / 1e9, w.kind(), w.description(), gaps[i] / 1e6));
            }
            if (!facts.isEmpty()) {
                s.append("\nfacts:\n");
                for (String fact : facts) {
                    s.append("  ").append(fact).append('\n');
                }
            }
            if (!notes.isEmpty()) {
                s.append("\nnotes:\n");
                for (String n : notes) {
                    s.append("  ").append(n).append('\n');
                }
            }
            Files.writeString(dir.resolve("summary.txt"), s);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the report in " + dir, e);
        }
    }
}
