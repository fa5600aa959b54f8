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

    /** One figure: its label, unit, direction and the measured cells. */
    static final class Row {
        final String scenario;
        final String unit;
        final boolean higherIsBetter;
        final boolean hasZkrOnZooKeeper;
        final Map<Column, Measurement> cells = new EnumMap<>(Column.class);

        Row(String scenario, String unit, boolean higherIsBetter, boolean hasZkrOnZooKeeper) {
            this.scenario = scenario;
            this.unit = unit;
            this.higherIsBetter = higherIsBetter;
            this.hasZkrOnZooKeeper = hasZkrOnZooKeeper;
        }

        Row set(Column column, Measurement m) {
            cells.put(column, m);
            return this;
        }
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
            Measurement zkr = r.cells.get(Column.ZKR);
            Measurement zk = r.cells.get(Column.ZOOKEEPER);
            Measurement onZk = r.cells.get(Column.ZKR_ON_ZOOKEEPER);
            sb.append("| ").append(r.scenario)
                    .append(" | ").append(cell(zkr, r.unit))
                    .append(" | ").append(cell(zk, r.unit))
                    .append(" | ").append(ratio(zkr, zk, r.higherIsBetter))
                    .append(" | ").append(r.hasZkrOnZooKeeper ? cell(onZk, r.unit) : "–")
                    .append(" | ").append(r.hasZkrOnZooKeeper ? ratio(onZk, zk, r.higherIsBetter) : "–")
                    .append(" |\n");
        }
        sb.append('\n');
        sb.append("¹ zkr vs ZooKeeper (stock client or Curator): above 1 means zkr is better "
                + "(throughput: zkr / ZooKeeper; latency, heap, disk and time: ZooKeeper / zkr).\n");
        sb.append("² zkr recipes through `ApacheZkClient` on the same ZooKeeper server vs Curator: above 1 means "
                + "the zkr recipe is better (tells recipe efficiency apart from server efficiency).\n");
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
