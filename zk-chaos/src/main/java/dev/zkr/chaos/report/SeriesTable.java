package dev.zkr.chaos.report;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/** The table of a series of runs (Markdown): per workload, then per fault kind the write gaps. Pure. */
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
            long[] row = byWorkload.computeIfAbsent(r.workload(), k -> new long[4]);
            row[0]++;
            row[1] += r.opsChecked();
            row[2] += r.faults();
            row[3] += r.anomalies().size();
            r.gapsByKind().forEach((kind, list) -> gaps.computeIfAbsent(kind, k -> new ArrayList<>()).addAll(list));
            for (String a : r.anomalies()) {
                anomalies.add(r.label() + ": " + a);
            }
        }
        s.append("### ").append(system).append(": ").append(reports.size()).append(" runs\n\n");
        s.append("| workload | runs | ops checked | faults injected | anomalies |\n|---|---:|---:|---:|---:|\n");
        long[] total = new long[4];
        for (Map.Entry<String, long[]> e : byWorkload.entrySet()) {
            long[] r = e.getValue();
            s.append(String.format(Locale.ROOT, "| %s | %d | %d | %d | %d |%n", e.getKey(), r[0], r[1], r[2], r[3]));
            for (int i = 0; i < 4; i++) {
                total[i] += r[i];
            }
        }
        s.append(String.format(Locale.ROOT, "| **all** | %d | %d | %d | %d |%n%n", total[0], total[1], total[2],
                total[3]));
        s.append("| fault | windows | write gap median | p90 | max |\n|---|---:|---:|---:|---:|\n");
        for (Map.Entry<String, List<Long>> e : gaps.entrySet()) {
            long[] g = e.getValue().stream().mapToLong(Long::longValue).sorted().toArray();
            s.append(String.format(Locale.ROOT, "| %s | %d | %.0f ms | %.0f ms | %.0f ms |%n", e.getKey(), g.length,
                    g[g.length / 2] / 1e6, g[(int) Math.min(g.length - 1, Math.ceil(g.length * 0.9) - 1)] / 1e6,
                    g[g.length - 1] / 1e6));
        }
        if (!anomalies.isEmpty()) {
            s.append("\nanomalies:\n");
            for (String a : anomalies) {
                s.append("- ").append(a).append('\n');
            }
        }
        return s.toString();
    }
}
