package dev.zkr.bench;

import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class BenchOptionsTest {

    private static BenchOptions parse(String... args) {
        return BenchOptions.parse(args, Path.of("r"), Path.of("d"));
    }

    @Test
    void defaultsRunEverythingButTheLargeTree() {
        BenchOptions o = parse();
        assertTrue(BenchOptions.SCENARIOS.stream().filter(s -> !s.equals("large")).allMatch(o::runs));
        assertFalse(o.runs("large"));
        assertEquals(1000, o.millionParents());
        assertEquals(Duration.ofSeconds(4), o.measure());
        assertEquals(3, o.rounds());
    }

    @Test
    void theLargeTreeRunsWhenAskedFor() {
        assertTrue(parse("--large").runs("large"));
        assertTrue(parse("--large").runs("million"));
        assertTrue(parse("--only", "large").runs("large"));
        assertFalse(parse("--only", "large").runs("million"));
        assertTrue(parse("--only", "million", "--large").runs("large"));
        assertEquals(10_000, parse().largeParents());
        assertEquals(20, parse("--large-parents", "20").largeParents());
        assertFalse(parse("--ensemble", "3", "--large").runs("large"));
    }

    @Test
    void quickShortensWindowsAndTree() {
        BenchOptions o = parse("--quick");
        assertEquals(Duration.ofSeconds(3), o.measure());
        assertEquals(100, o.millionParents());
        assertEquals(1, o.rounds());
        assertEquals(2, parse("--quick", "--rounds", "2").rounds());
        assertEquals(Duration.ofMillis(500), parse("--quick", "--measure", "0.5").measure());
    }

    @Test
    void onlyAndSkipMillion() {
        BenchOptions o = parse("--only", "lock,million", "--skip-million");
        assertTrue(o.runs("lock"));
        assertFalse(o.runs("million"));
        assertFalse(o.runs("create"));
    }

    @Test
    void recipePartTwoRowsRunAlone() {
        BenchOptions o = parse("--only", "semaphore,cache,cachemem");
        assertTrue(o.runs("semaphore") && o.runs("cache") && o.runs("cachemem"));
        assertFalse(o.runs("lock"));
        assertFalse(o.runs("million"));
    }

    @Test
    void warmupRoundsAreNoneByDefaultAndNeverNegative() {
        assertEquals(0, parse().warmupRounds());
        assertEquals(1, parse("--warmup-rounds", "1", "--only", "rwlock").warmupRounds());
        assertEquals(0, parse("--warmup-rounds", "0").warmupRounds());
        assertThrows(IllegalArgumentException.class, () -> parse("--warmup-rounds", "-1"));
        assertThrows(IllegalArgumentException.class, () -> parse("--warmup-rounds", "x"));
    }

    @Test
    void badArgumentsAreRejectedClearly() {
        assertThrows(IllegalArgumentException.class, () -> parse("--only", "nope"));
        assertThrows(IllegalArgumentException.class, () -> parse("--measure"));
        assertThrows(IllegalArgumentException.class, () -> parse("--measure", "-1"));
        assertThrows(IllegalArgumentException.class, () -> parse("--parents", "0"));
        assertThrows(IllegalArgumentException.class, () -> parse("--rounds", "x"));
        assertThrows(IllegalArgumentException.class, () -> parse("--frobnicate"));
    }

    @Test
    void membershipRowsRunOnlyWhenNamed() {
        BenchOptions defaults = parse("--ensemble", "3");
        assertTrue(defaults.runs("create") && defaults.runs("kill"));
        assertFalse(defaults.runs("observers"));
        assertFalse(defaults.runs("catchup"));
        BenchOptions o = parse("--ensemble", "3", "--only", "observers,catchup");
        assertTrue(o.runs("observers") && o.runs("catchup"));
        assertFalse(o.runs("create"));
        assertThrows(IllegalArgumentException.class, () -> parse("--only", "observers"));
        assertFalse(o.catchupSnap());
        assertTrue(parse("--ensemble", "3", "--only", "catchup", "--catchup-snap").catchupSnap());
    }

    @Test
    void ensembleRowsHaveTheirOwnScenarios() {
        BenchOptions o = parse("--only", "kill,sigstop", "--ensemble", "3", "--kills", "7");
        assertEquals(3, o.ensemble());
        assertEquals(7, o.kills());
        assertTrue(o.runs("kill"));
        assertFalse(o.runs("create"));
        assertTrue(BenchOptions.ENSEMBLE_SCENARIOS.stream().filter(s -> !BenchOptions.ON_REQUEST.contains(s))
                .allMatch(parse("--ensemble", "5")::runs));
        assertEquals(0, parse().ensemble());
        assertEquals(5, parse().kills());
        assertThrows(IllegalArgumentException.class, () -> parse("--ensemble", "3", "--only", "notify"));
        assertThrows(IllegalArgumentException.class, () -> parse("--only", "kill"));
        assertThrows(IllegalArgumentException.class, () -> parse("--ensemble", "4"));
        assertThrows(IllegalArgumentException.class, () -> parse("--ensemble", "3", "--kills", "0"));
        assertEquals(java.util.Set.of("zkr"), parse("--ensemble", "3", "--systems", "zkr").systems());
        assertEquals(java.util.Set.of("zkr", "zookeeper"), parse("--ensemble", "3").systems());
        assertThrows(IllegalArgumentException.class, () -> parse("--ensemble", "3", "--systems", "etcd"));
    }
}
