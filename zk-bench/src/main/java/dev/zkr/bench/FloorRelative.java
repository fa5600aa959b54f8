package dev.zkr.bench;

import dev.zkr.bench.ResultTable.Column;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The floor-relative figures under the table (issue 31): a recipe step that waits for another client's write and
 * its notification cannot beat the {@code notify} row of its own server (one fsynced delete and the watch event it
 * fires). For each row marked {@link ResultTable.Row#boundByFloor()}, the note gives each column's <em>steps per
 * floor</em>: a throughput row's rate × that server's notify p50, or the notify p50 / a latency row's figure. 1.0
 * would be one step per floor; the columns' quotient shows what each recipe makes of its own server's floor, apart
 * from how fast that server is. "zkr recipes on ZooKeeper" counts against ZooKeeper's floor (it runs there).
 */
final class FloorRelative {

    /** The notify row's label. */
    static final String FLOOR_ROW = "delete → another session's watch fires, p50 (floor of a handoff)";

    private FloorRelative() {
    }

    /** One note per floor-bound row with a figure, or none if the notify row did not run in this table. */
    static List<String> notes(ResultTable table) {
        ResultTable.Row floor = table.rows().stream().filter(r -> r.scenario.equals(FLOOR_ROW)).findFirst()
                .orElse(null);
        if (floor == null) {
            return List.of();
        }
        List<String> notes = new ArrayList<>();
        for (ResultTable.Row row : table.rows()) {
            if (!row.floorBound()) {
                continue;
            }
            StringBuilder sb = new StringBuilder("steps per floor (")
                    .append(row.higherIsBetter ? "the rate × its server's notify p50"
                            : "its server's notify p50 / the figure")
                    .append("), ").append(row.scenario).append(": ");
            boolean any = false;
            for (Column column : Column.values()) {
                Double steps = stepsPerFloor(row, floor, column);
                if (steps != null) {
                    sb.append(any ? ", " : "").append(column.title).append(' ')
                            .append(String.format(Locale.ROOT, "%.2f", steps));
                    any = true;
                }
            }
            if (any) {
                notes.add(sb.toString());
            }
        }
        return notes;
    }

    /** Steps per floor of one column, or null if the row or that server's floor has no figure. */
    static Double stepsPerFloor(ResultTable.Row row, ResultTable.Row floor, Column column) {
        Measurement m = row.cell(column);
        Measurement f = floor.cell(column == Column.ZKR ? Column.ZKR : Column.ZOOKEEPER);
        if (m == null || f == null || !m.ok() || !f.ok() || m.value() <= 0 || f.value() <= 0) {
            return null;
        }
        double floorMs = f.value();
        return row.higherIsBetter ? m.value() * floorMs / 1000 : floorMs / m.value();
    }
}
