package dev.zkr.chaos.report;

import org.junit.jupiter.api.Test;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A run's line in {@code runs.tsv} reads back as written, and tables render from lines of several invocations. */
class RunRowTest {

    @Test
    void aRowReadsBackAsWrittenWithItsGapsAndAnomalies() {
        Map<String, List<Long>> gaps = new LinkedHashMap<>();
        gaps.put("kill-leader", List.of(265_000_000L, 2_300_000_000L));
        gaps.put("torn-tail", List.of(149_000_000L));
        RunRow row = new RunRow("zookeeper", "queue", "mix", 3, 22, 50_693, 5, gaps,
                List.of("queue: item w3-135\tin two nodes\nsecond line", "another"));
        RunRow back = RunRow.parse(row.toLine());
        assertEquals(row.gapsByKind(), back.gapsByKind());
        assertEquals(List.of("queue: item w3-135 in two nodes second line", "another"), back.anomalies());
        assertEquals(new RunRow("zookeeper", "queue", "mix", 3, 22, 50_693, 5, gaps, back.anomalies()), back);
        assertEquals("zookeeper-queue-mix-n3-seed22", back.label());
    }

    @Test
    void aRunWithoutFaultsOrAnomaliesReadsBack() {
        RunRow row = new RunRow("zkr", "set", "none", 5, 1, 10, 0, Map.of(), List.of());
        assertEquals(row, RunRow.parse(row.toLine()));
    }

    @Test
    void aTruncatedLineIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> RunRow.parse("zkr\tset\tmix"));
    }

    @Test
    void theTableAddsUpRowsOfSeveralParts() {
        RunRow a = new RunRow("zkr", "set", "mix", 3, 1, 100, 2, Map.of("kill-leader", List.of(1_000_000L)),
                List.of());
        RunRow b = new RunRow("zkr", "set", "mix", 3, 2, 50, 3, Map.of("kill-leader", List.of(3_000_000L)),
                List.of("set: lost"));
        String table = SeriesTable.render(List.of(RunRow.parse(a.toLine()), RunRow.parse(b.toLine())));
        assertTrue(table.contains("| set | 2 | 150 | 5 | 1 |"), table);
        assertTrue(table.contains("| kill-leader | 2 | 3 ms | 3 ms | 3 ms |"), table);
        assertTrue(table.contains("- zkr-set-mix-n3-seed2: set: lost"), table);
    }
}
