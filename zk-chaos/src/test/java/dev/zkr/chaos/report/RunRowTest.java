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

    @Test
    void sideBySideComparesOnlyTheRunsEverySystemMade() {
        RunRow zkr1 = new RunRow("zkr", "set", "mix", 3, 1, 100, 2, Map.of("kill-leader", List.of(1_000_000L)),
                List.of());
        RunRow zk1 = new RunRow("zookeeper", "set", "mix", 3, 1, 80, 2, Map.of("kill-leader", List.of(5_000_000L)),
                List.of("lost"));
        RunRow zkr2 = new RunRow("zkr", "set", "mix", 3, 2, 100, 1, Map.of("torn-tail", List.of(9_000_000L)),
                List.of()); // its ZooKeeper turn never ran
        Map<String, List<RunRow>> bySystem = new java.util.TreeMap<>();
        bySystem.put("zkr", List.of(zkr1, zkr2));
        bySystem.put("zookeeper", List.of(zk1));
        String t = SeriesTable.comparison(bySystem);
        assertTrue(t.contains("the 1 runs every system made"), t);
        assertTrue(t.contains("| zkr | 1 | 100 | 2 | 0 |"), t);
        assertTrue(t.contains("| zookeeper | 1 | 80 | 2 | 1 |"), t);
        assertTrue(t.contains("| kill-leader | 1 / 1 ms (1) | 5 / 5 ms (1) |"), t);
        assertTrue(!t.contains("torn-tail"), t);
        assertEquals("", SeriesTable.comparison(Map.of("zkr", List.of(zkr1))));
        RunRow lock = new RunRow("zkr", "lock", "mix", 3, 1, 100, 1, Map.of("pause-leader", List.of(9_000_000L)),
                List.of());
        assertTrue(!SeriesTable.render(List.of(lock)).contains("| pause-leader |"),
                "a lock workload's gaps are hand-offs, not unavailability");
    }

    @Test
    void theIndeterminateWritesReadBackAndOldLinesReadAsUnknown() {
        RunRow row = new RunRow("zkr", "exactly-once", "mix", 3, 4, 900, 3, Map.of(), List.of("cas-counter: lost"),
                7);
        RunRow back = RunRow.parse(row.toLine());
        assertEquals(row, back);
        assertEquals(List.of("cas-counter: lost"), back.anomalies());
        RunRow old = RunRow.parse("zkr\tset\tmix\t3\t1\t100\t2\t-\tset: lost");
        assertEquals(-1, old.indeterminateWrites());
        assertEquals(List.of("set: lost"), old.anomalies());
    }

    @Test
    void theTablesCountIndeterminateWritesPerSystem() {
        RunRow zkr = new RunRow("zkr", "exactly-once", "mix", 3, 1, 100, 2, Map.of(), List.of(), 0);
        RunRow zk = new RunRow("zookeeper", "exactly-once", "mix", 3, 1, 100, 2, Map.of(), List.of(), 12);
        RunRow oldZk = new RunRow("zookeeper", "set", "mix", 3, 2, 10, 1, Map.of(), List.of());
        assertTrue(SeriesTable.render(List.of(zkr)).contains("| exactly-once | 1 | 100 | 2 | 0 | 0 |"));
        String zkTable = SeriesTable.render(List.of(zk, oldZk));
        assertTrue(zkTable.contains("| set | 1 | 10 | 1 | 0 | – |"), zkTable);
        assertTrue(zkTable.contains("| **all** | 2 | 110 | 3 | 0 | 12 +? |"), zkTable);
        String side = SeriesTable.comparison(new java.util.TreeMap<>(Map.of("zkr", List.of(zkr),
                "zookeeper", List.of(zk))));
        assertTrue(side.contains("| zkr | 1 | 100 | 2 | 0 | 0 |"), side);
        assertTrue(side.contains("| zookeeper | 1 | 100 | 2 | 0 | 12 |"), side);
    }
}
