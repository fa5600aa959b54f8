package dev.zkr.bench;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The benchmark's result: one row per figure, one column per system, rendered as a Markdown table. Ratios are
 * oriented so that a value above 1 means zkr is better (throughput: zkr / ZooKeeper; latency, memory, size and
 * time: ZooKeeper / zkr).
 */
final class ResultTable {

    /** The systems measured. */
    enum Column {
        ZKR("zkr"),
        ZOOKEEPER("ZooKeeper / Curator"),
        ZKR_ON_ZOOKEEPER("zkr recipes on ZooKeeper");

        final String title;

        Column(String title) {
            this.title = title;
        }
    }

    /** One figure: its label, unit, direction and the measured rounds per column (the cell is their median). */
    static final class Row {
        final String scenario;
        final String unit;
        final boolean higherIsBetter;
        final boolean hasZkrOnZooKeeper;
        private final Map<Column, List<Measurement>> rounds = new EnumMap<>(Column.class);
        private boolean floorBound; // guarded by this

        Row(String scenario, String unit, boolean higherIsBetter, boolean hasZkrOnZooKeeper) {
            this.scenario = scenario;
            this.unit = unit;
            this.higherIsBetter = higherIsBetter;
            this.hasZkrOnZooKeeper = hasZkrOnZooKeeper;
        }

        /**
         * Marks a recipe row whose every step waits for another client's write and its notification, so that the
         * {@code notify} row bounds it ({@link FloorRelative}).
         */
        synchronized Row boundByFloor() {
            floorBound = true;
            return this;
        }

        synchronized boolean floorBound() {
            return floorBound;
        }

        /** Adds one round's figure. */
        synchronized Row add(Column column, Measurement m) {
            rounds.computeIfAbsent(column, c -> new ArrayList<>()).add(m);
            return this;
        }

        /** Replaces the column's figures by this one. */
        synchronized Row set(Column column, Measurement m) {
            rounds.put(column, new ArrayList<>(List.of(m)));
            return this;
        }

        /**
         * The median of the rounds that succeeded, the first failure if none did, null if never run. How many
         * failed is {@link #failedRounds}; the table shows it next to the figure.
         */
        synchronized Measurement cell(Column column) {
            List<Measurement> ms = rounds.get(column);
            if (ms == null || ms.isEmpty()) {
                return null;
            }
            double[] ok = ms.stream().filter(Measurement::ok).mapToDouble(Measurement::value).toArray();
            if (ok.length == 0) {
                return ms.get(0);
            }
            return Measurement.of(median(ok));
        }

        /** How many rounds of the column failed. */
        synchronized int failedRounds(Column column) {
            return (int) rounds.getOrDefault(column, List.of()).stream().filter(m -> !m.ok()).count();
        }

        /** The cell as shown: the figure, and how many rounds failed if some (but not all) did. */
        synchronized String shown(Column column) {
            Measurement m = cell(column);
            int failed = failedRounds(column);
            String text = ResultTable.cell(m, unit);
            return m != null && m.ok() && failed > 0
                    ? text + " (" + failed + " of " + rounds.get(column).size() + " rounds failed)" : text;
        }

        synchronized List<Measurement> rounds(Column column) {
            return List.copyOf(rounds.getOrDefault(column, List.of()));
        }
    }

    static double median(double[] values) {
        double[] v = values.clone();
        java.util.Arrays.sort(v);
        int n = v.length;
        return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    }

    private final List<Row> rows = new ArrayList<>();

    synchronized Row row(String scenario, String unit, boolean higherIsBetter, boolean hasZkrOnZooKeeper) {
        for (Row r : rows) {
            if (r.scenario.equals(scenario)) {
                return r;
            }
        }
        Row r = new Row(scenario, unit, higherIsBetter, hasZkrOnZooKeeper);
        rows.add(r);
        return r;
    }

    synchronized List<Row> rows() {
        return List.copyOf(rows);
    }

    /** The Markdown table plus its footnotes. */
    synchronized String toMarkdown() {
        StringBuilder sb = new StringBuilder();
        sb.append("| scenario | ").append(Column.ZKR.title).append(" | ").append(Column.ZOOKEEPER.title)
                .append(" | ratio¹ | ").append(Column.ZKR_ON_ZOOKEEPER.title).append(" | ratio² |\n");
        sb.append("|---|---:|---:|---:|---:|---:|\n");
        for (Row r : rows) {
            Measurement zkr = r.cell(Column.ZKR);
            Measurement zk = r.cell(Column.ZOOKEEPER);
            Measurement onZk = r.cell(Column.ZKR_ON_ZOOKEEPER);
            sb.append("| ").append(r.scenario)
                    .append(" | ").append(r.shown(Column.ZKR))
                    .append(" | ").append(r.shown(Column.ZOOKEEPER))
                    .append(" | ").append(ratio(zkr, zk, r.higherIsBetter))
                    .append(" | ").append(r.hasZkrOnZooKeeper ? r.shown(Column.ZKR_ON_ZOOKEEPER) : "–")
                    .append(" | ").append(r.hasZkrOnZooKeeper ? ratio(onZk, zk, r.higherIsBetter) : "–")
                    .append(" |\n");
        }
        sb.append('\n');
        sb.append("¹ zkr vs ZooKeeper (stock client or Curator): above 1 means zkr is better "
                + "(throughput: zkr / ZooKeeper; latency, heap, disk and time: ZooKeeper / zkr).\n");
        sb.append("² zkr recipes through `ApacheZkClient` on the same ZooKeeper server vs Curator: above 1 means "
                + "the zkr recipe is better (tells recipe efficiency apart from server efficiency).\n");
        sb.append("Each cell is the median of its rounds (below) that succeeded; a round fails on the first error of "
                + "any worker (e.g. a recipe call that does not return within 30 s); the systems take turns round by "
                + "round.\n");
        StringBuilder details = new StringBuilder();
        for (Row r : rows) {
            StringBuilder line = new StringBuilder();
            for (Column c : Column.values()) {
                List<Measurement> ms = r.rounds(c);
                if (ms.size() > 1) {
                    line.append(line.length() == 0 ? "" : "; ").append(c.title).append(": ");
                    line.append(String.join(" / ", ms.stream()
                            .map(m -> m.ok() ? number(m.value())
                                    : "failed (" + m.failure().replace('|', '/').replace('\n', ' ') + ")")
                            .toList()));
                }
            }
            if (line.length() > 0) {
                details.append("- ").append(r.scenario).append(" (").append(r.unit).append("): ").append(line)
                        .append('\n');
            }
        }
        if (details.length() > 0) {
            sb.append("\nRounds:\n\n").append(details);
        }
        return sb.toString();
    }

    static String cell(Measurement m, String unit) {
        if (m == null) {
            return "not run";
        }
        if (!m.ok()) {
            return "n/a (" + m.failure().replace('|', '/').replace('\n', ' ') + ")";
        }
        return number(m.value()) + " " + unit;
    }

    static String ratio(Measurement zkr, Measurement other, boolean higherIsBetter) {
        if (zkr == null || other == null || !zkr.ok() || !other.ok() || zkr.value() <= 0 || other.value() <= 0) {
            return "–";
        }
        double r = higherIsBetter ? zkr.value() / other.value() : other.value() / zkr.value();
        return String.format(Locale.ROOT, "%.2f×", r);
    }

    /** Three significant-ish digits: 6,312 / 74.3 / 0.41. */
    static String number(double v) {
        double a = Math.abs(v);
        if (a >= 100) {
            return String.format(Locale.ROOT, "%,.0f", v);
        }
        if (a >= 10) {
            return String.format(Locale.ROOT, "%.1f", v);
        }
        return String.format(Locale.ROOT, "%.2f", v);
    }
}
