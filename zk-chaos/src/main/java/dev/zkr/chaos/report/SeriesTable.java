package dev.zkr.chaos.report;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * The table of a series of runs (Markdown): per workload, then per fault kind the write gaps. Pure. The
 * "indeterminate writes" column counts writes that ended neither OK nor definitely failed (rows from before that
 * count existed add nothing and mark the sum with {@code +?}).
 */
public final class SeriesTable {

    private SeriesTable() {
    }

    public static String render(List<RunRow> reports) {
        StringBuilder s = new StringBuilder();
        Map<String, long[]> byWorkload = new TreeMap<>();
        Map<String, List<Long>> gaps = new TreeMap<>();
        List<String> anomalies = new ArrayList<>();
        String system = reports.isEmpty() ? "?" : reports.get(0).system();
        for (RunRow r : reports) {
            long[] row = byWorkload.computeIfAbsent(r.workload(), k -> new long[6]);
            row[0]++;
            row[1] += r.opsChecked();
            row[2] += r.faults();
            row[3] += r.anomalies().size();
            addIndeterminate(row, r);
            if (measuresWrites(r.workload())) {
                r.gapsByKind().forEach((kind, list) -> gaps.computeIfAbsent(kind, k -> new ArrayList<>())
                        .addAll(list));
            }
            for (String a : r.anomalies()) {
                anomalies.add(r.label() + ": " + a);
            }
        }
        s.append("### ").append(system).append(": ").append(reports.size()).append(" runs\n\n");
        s.append("| workload | runs | ops checked | faults injected | anomalies | indeterminate writes |\n"
                + "|---|---:|---:|---:|---:|---:|\n");
        long[] total = new long[6];
        for (Map.Entry<String, long[]> e : byWorkload.entrySet()) {
            long[] r = e.getValue();
            s.append(String.format(Locale.ROOT, "| %s | %d | %d | %d | %d | %s |%n", e.getKey(), r[0], r[1], r[2],
                    r[3], indeterminate(r)));
            for (int i = 0; i < 6; i++) {
                total[i] += r[i];
            }
        }
        s.append(String.format(Locale.ROOT, "| **all** | %d | %d | %d | %d | %s |%n%n", total[0], total[1], total[2],
                total[3], indeterminate(total)));
        s.append("Write gaps of the data workloads (" + DATA_WORKLOADS + "):\n\n");
        s.append("| fault | windows | write gap median | p90 | max |\n|---|---:|---:|---:|---:|\n");
        for (Map.Entry<String, List<Long>> e : gaps.entrySet()) {
            long[] g = sorted(e.getValue());
            s.append(String.format(Locale.ROOT, "| %s | %d | %.0f ms | %.0f ms | %.0f ms |%n", e.getKey(), g.length,
                    median(g) / 1e6, p90(g) / 1e6, g[g.length - 1] / 1e6));
        }
        if (!anomalies.isEmpty()) {
            s.append("\nanomalies:\n");
            for (String a : anomalies) {
                s.append("- ").append(a).append('\n');
            }
        }
        return s.toString();
    }

    /**
     * The systems side by side over the runs every one of them made (same workload, nemesis, servers and seed):
     * runs, operations checked, faults and anomalies per system, then per fault kind each system's windows and
     * write gap median and p90. Empty when fewer than two systems ran.
     */
    public static String comparison(Map<String, List<RunRow>> bySystem) {
        if (bySystem.size() < 2) {
            return "";
        }
        java.util.Set<String> common = null;
        for (List<RunRow> rows : bySystem.values()) {
            java.util.Set<String> keys = new java.util.HashSet<>();
            rows.forEach(r -> keys.add(key(r)));
            if (common == null) {
                common = keys;
            } else {
                common.retainAll(keys);
            }
        }
        StringBuilder s = new StringBuilder("### Side by side: the ").append(common.size())
                .append(" runs every system made (same workload, faults and seed)\n\n")
                .append("| system | runs | ops checked | faults injected | anomalies | indeterminate writes |\n"
                        + "|---|---:|---:|---:|---:|---:|\n");
        Map<String, Map<String, List<Long>>> gaps = new TreeMap<>();
        for (Map.Entry<String, List<RunRow>> e : bySystem.entrySet()) {
            long[] row = new long[6];
            for (RunRow r : e.getValue()) {
                if (!common.contains(key(r))) {
                    continue;
                }
                row[0]++;
                row[1] += r.opsChecked();
                row[2] += r.faults();
                row[3] += r.anomalies().size();
                addIndeterminate(row, r);
                if (measuresWrites(r.workload())) {
                    r.gapsByKind().forEach((kind, list) -> gaps.computeIfAbsent(kind, k -> new TreeMap<>())
                            .computeIfAbsent(e.getKey(), k -> new ArrayList<>()).addAll(list));
                }
            }
            s.append(String.format(Locale.ROOT, "| %s | %d | %d | %d | %d | %s |%n", e.getKey(), row[0], row[1],
                    row[2], row[3], indeterminate(row)));
        }
        s.append("\nLongest gap between acknowledged writes overlapping each fault window, data workloads ("
                + DATA_WORKLOADS + "; median / p90, windows):\n\n| fault |");
        for (String system : bySystem.keySet()) {
            s.append(' ').append(system).append(" |");
        }
        s.append("\n|---|").append("---:|".repeat(bySystem.size())).append('\n');
        for (Map.Entry<String, Map<String, List<Long>>> e : gaps.entrySet()) {
            s.append("| ").append(e.getKey()).append(" |");
            for (String system : bySystem.keySet()) {
                List<Long> list = e.getValue().get(system);
                if (list == null || list.isEmpty()) {
                    s.append(" – |");
                } else {
                    long[] g = sorted(list);
                    s.append(String.format(Locale.ROOT, " %.0f / %.0f ms (%d) |", median(g) / 1e6, p90(g) / 1e6,
                            g.length));
                }
            }
            s.append('\n');
        }
        return s.toString();
    }

    /** Adds a run's indeterminate writes to {@code row[4]}, or counts it as unknown in {@code row[5]}. */
    private static void addIndeterminate(long[] row, RunRow r) {
        if (r.indeterminateWrites() >= 0) {
            row[4] += r.indeterminateWrites();
        } else {
            row[5]++;
        }
    }

    private static String indeterminate(long[] row) {
        if (row[5] == row[0]) {
            return "–";
        }
        return row[4] + (row[5] > 0 ? " +?" : "");
    }

    private static final String DATA_WORKLOADS = "not lock, rwlock, latch: their writes wait for hand-offs and "
            + "terms the workload itself spaces out, so a gap there measures the workload, not the fault";

    /**
     * Whether a workload's write gaps measure unavailability: data workloads write all the time; the lock and latch
     * workloads acquire and get elected only as often as their holders let go.
     */
    static boolean measuresWrites(String workload) {
        return !workload.contains("lock") && !workload.contains("latch");
    }

    private static String key(RunRow r) {
        return r.workload() + "/" + r.nemesis() + "/" + r.servers() + "/" + r.seed();
    }

    private static long[] sorted(List<Long> values) {
        return values.stream().mapToLong(Long::longValue).sorted().toArray();
    }

    private static long median(long[] sorted) {
        return sorted[sorted.length / 2];
    }

    private static long p90(long[] sorted) {
        return sorted[(int) Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.9) - 1)];
    }
}
