package dev.zkr.chaos.report;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a series table needs of one run, as one line of a series' {@code runs.tsv}: system, workload, nemesis,
 * servers, seed, operations checked, faults injected, the write gap of each fault window by kind, the anomalies,
 * and how many writes ended indeterminate (-1 in lines written before that count existed).
 * Lines accumulate over invocations (a long series can be run in parts, e.g. {@code --seed 1 --repeat 50} then
 * {@code --seed 51 --repeat 50}), and the tables are rendered from all of them. Pure.
 */
public record RunRow(String system, String workload, String nemesis, int servers, long seed, long opsChecked,
                     int faults, Map<String, List<Long>> gapsByKind, List<String> anomalies,
                     long indeterminateWrites) {

    /** The field that carries {@link #indeterminateWrites()}, before the anomalies. */
    private static final String INDETERMINATE = "indeterminate-writes=";

    /** A row whose count of indeterminate writes is unknown. */
    public RunRow(String system, String workload, String nemesis, int servers, long seed, long opsChecked,
                  int faults, Map<String, List<Long>> gapsByKind, List<String> anomalies) {
        this(system, workload, nemesis, servers, seed, opsChecked, faults, gapsByKind, anomalies, -1);
    }

    public static RunRow of(RunReport r) {
        return new RunRow(r.config().system(), r.config().workload(), r.config().nemesis(), r.config().servers(),
                r.config().seed(), r.opsChecked(), r.faultsInjected(), r.gapsByKind(), r.anomalies(),
                r.indeterminateWrites());
    }

    /** The run's directory name (as {@link dev.zkr.chaos.RunConfig#label()}). */
    public String label() {
        return system + "-" + workload + "-" + nemesis + "-n" + servers + "-seed" + seed;
    }

    /**
     * Tab-separated: system, workload, nemesis, servers, seed, ops, faults, gaps ({@code kind=ns,ns;kind=ns}, or
     * {@code -}), {@code indeterminate-writes=N} when known, then one field per anomaly (tabs and line breaks in
     * them become spaces).
     */
    public String toLine() {
        StringBuilder g = new StringBuilder();
        gapsByKind.forEach((kind, list) -> {
            if (!g.isEmpty()) {
                g.append(';');
            }
            g.append(kind).append('=');
            for (int i = 0; i < list.size(); i++) {
                g.append(i == 0 ? "" : ",").append(list.get(i));
            }
        });
        StringBuilder s = new StringBuilder().append(system).append('\t').append(workload).append('\t')
                .append(nemesis).append('\t').append(servers).append('\t').append(seed).append('\t')
                .append(opsChecked).append('\t').append(faults).append('\t').append(g.isEmpty() ? "-" : g);
        if (indeterminateWrites >= 0) {
            s.append('\t').append(INDETERMINATE).append(indeterminateWrites);
        }
        for (String a : anomalies) {
            s.append('\t').append(a.replaceAll("[\\t\\r\\n]+", " "));
        }
        return s.toString();
    }

    public static RunRow parse(String line) {
        String[] f = line.split("\t", -1);
        if (f.length < 8) {
            throw new IllegalArgumentException("not a run row (" + f.length + " fields): " + line);
        }
        Map<String, List<Long>> gaps = new LinkedHashMap<>();
        if (!f[7].equals("-")) {
            for (String part : f[7].split(";")) {
                int eq = part.indexOf('=');
                List<Long> list = new ArrayList<>();
                for (String n : part.substring(eq + 1).split(",")) {
                    list.add(Long.parseLong(n));
                }
                gaps.put(part.substring(0, eq), list);
            }
        }
        int anomaliesFrom = 8;
        long indeterminate = -1;
        if (f.length > 8 && f[8].startsWith(INDETERMINATE)) {
            indeterminate = Long.parseLong(f[8].substring(INDETERMINATE.length()));
            anomaliesFrom = 9;
        }
        return new RunRow(f[0], f[1], f[2], Integer.parseInt(f[3]), Long.parseLong(f[4]), Long.parseLong(f[5]),
                Integer.parseInt(f[6]), gaps, List.of(Arrays.copyOfRange(f, anomaliesFrom, f.length)),
                indeterminate);
    }
}
