package dev.zkr.bench;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class LatenciesTest {

    @Test
    void nearestRankPercentiles() {
        Latencies l = new Latencies();
        for (int i = 100; i >= 1; i--) {
            l.record(i * 1_000_000L);
        }
        assertEquals(100, l.count());
        assertEquals(50_000_000L, l.percentile(50));
        assertEquals(99_000_000L, l.percentile(99));
        assertEquals(100_000_000L, l.percentile(100));
        assertEquals(1_000_000L, l.percentile(0.5));
        assertEquals(50.0, l.percentileMillis(50));
    }

    @Test
    void singleSampleAndGrowth() {
        Latencies l = new Latencies();
        l.record(7);
        assertEquals(7, l.percentile(50));
        for (int i = 0; i < 5000; i++) {
            l.record(8);
        }
        assertEquals(8, l.percentile(99));
        assertEquals(5001, l.count());
    }

    @Test
    void rejectsBadInput() {
        Latencies l = new Latencies();
        assertThrows(IllegalStateException.class, () -> l.percentile(50));
        assertThrows(IllegalArgumentException.class, () -> l.record(-1));
        l.record(1);
        assertThrows(IllegalArgumentException.class, () -> l.percentile(0));
        assertThrows(IllegalArgumentException.class, () -> l.percentile(101));
    }
}
