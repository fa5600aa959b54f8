package dev.zkr.bench;

import dev.zkr.bench.ResultTable.Column;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ResultTableTest {

    @Test
    void ratioAboveOneMeansZkrIsBetterInBothDirections() {
        assertEquals("2.00×", ResultTable.ratio(Measurement.of(200), Measurement.of(100), true));
        assertEquals("0.50×", ResultTable.ratio(Measurement.of(50), Measurement.of(100), true));
        assertEquals("4.00×", ResultTable.ratio(Measurement.of(1), Measurement.of(4), false));
        assertEquals("0.25×", ResultTable.ratio(Measurement.of(4), Measurement.of(1), false));
    }

    @Test
    void noRatioWithoutTwoFigures() {
        assertEquals("–", ResultTable.ratio(Measurement.failed("down"), Measurement.of(1), true));
        assertEquals("–", ResultTable.ratio(null, Measurement.of(1), true));
        assertEquals("–", ResultTable.ratio(Measurement.of(0), Measurement.of(1), false));
    }

    @Test
    void numbersKeepAboutThreeDigits() {
        assertEquals("6,312", ResultTable.number(6312.4));
        assertEquals("74.3", ResultTable.number(74.34));
        assertEquals("0.41", ResultTable.number(0.414));
        assertEquals("n/a (no | here)".replace("|", "/"), ResultTable.cell(Measurement.failed("no | here"), "ms"));
        assertEquals("not run", ResultTable.cell(null, "ms"));
    }

    @Test
    void cellIsTheMedianOfTheRoundsThatSucceededAndCountsTheFailedOnes() {
        ResultTable.Row row = new ResultTable().row("x", "ops/s", true, false);
        row.add(Column.ZKR, Measurement.of(30)).add(Column.ZKR, Measurement.of(10)).add(Column.ZKR, Measurement.of(20));
        assertEquals(20.0, row.cell(Column.ZKR).value());
        row.add(Column.ZKR, Measurement.of(40));
        assertEquals(25.0, row.cell(Column.ZKR).value());
        row.add(Column.ZOOKEEPER, Measurement.of(1)).add(Column.ZOOKEEPER, Measurement.failed("boom"))
                .add(Column.ZOOKEEPER, Measurement.of(3));
        assertEquals(2.0, row.cell(Column.ZOOKEEPER).value());
        assertEquals(1, row.failedRounds(Column.ZOOKEEPER));
        assertEquals("2.00 ops/s (1 of 3 rounds failed)", row.shown(Column.ZOOKEEPER));
        assertEquals("25.0 ops/s", row.shown(Column.ZKR));
        row.add(Column.ZKR_ON_ZOOKEEPER, Measurement.failed("boom")).add(Column.ZKR_ON_ZOOKEEPER, Measurement.failed("2"));
        assertEquals("boom", row.cell(Column.ZKR_ON_ZOOKEEPER).failure());
        assertEquals("n/a (boom)", row.shown(Column.ZKR_ON_ZOOKEEPER));
    }

    @Test
    void markdownHasHeaderRowsAndFootnotes() {
        ResultTable t = new ResultTable();
        t.row("creates", "creates/s", true, false)
                .set(Column.ZKR, Measurement.of(8000))
                .set(Column.ZOOKEEPER, Measurement.of(4000));
        t.row("lock p50", "ms", false, true)
                .set(Column.ZKR, Measurement.of(1))
                .set(Column.ZOOKEEPER, Measurement.of(3))
                .set(Column.ZKR_ON_ZOOKEEPER, Measurement.of(2));
        String md = t.toMarkdown();
        String[] lines = md.split("\n");
        assertTrue(lines[0].startsWith("| scenario | zkr | ZooKeeper / Curator | ratio¹ | zkr recipes on ZooKeeper"), md);
        assertEquals("| creates | 8,000 creates/s | 4,000 creates/s | 2.00× | – | – |", lines[2]);
        assertEquals("| lock p50 | 1.00 ms | 3.00 ms | 3.00× | 2.00 ms | 1.50× |", lines[3]);
        assertTrue(md.contains("above 1 means zkr is better"), md);
        t.row("creates", "creates/s", true, false).add(Column.ZKR, Measurement.of(9000));
        assertTrue(t.toMarkdown().contains("- creates (creates/s): zkr: 8,000 / 9,000"), t.toMarkdown());
        assertEquals(2, t.rows().size());
        assertEquals(t.rows().get(0), t.row("creates", "creates/s", true, false), "rows are found by label");
    }
}
