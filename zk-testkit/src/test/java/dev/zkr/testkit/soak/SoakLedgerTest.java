package dev.zkr.testkit.soak;

import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SoakLedgerTest {

    private static SoakLedger ledger() {
        SoakLedger l = new SoakLedger();
        l.ackedNode("/soak/named/n0/b0/n0-0", "n0-0");
        l.ackedNode("/soak/seq/s1/b0/s-s1-0-0000000000", "s1-0");
        l.ackedCounter("/soak/counter/c0", 1, "ca-0");
        l.ackedCounter("/soak/counter/c0", 2, "cb-0");
        return l;
    }

    private static SoakLedger.View view(Map<String, String> nodes, int version, String data) {
        return new SoakLedger.View(nodes, Map.of("/soak/counter/c0", new SoakLedger.Counter(version, data)));
    }

    @Test
    void aViewWithEveryAcknowledgedWriteIsClean() {
        SoakLedger.Verdict v = ledger().check("s", view(Map.of("/soak/named/n0/b0/n0-0", "n0-0",
                "/soak/seq/s1/b0/s-s1-0-0000000000", "s1-0", "/soak/named/n0/b0/n0-1", "n0-1"), 3, "3 ca-1"));
        assertTrue(v.clean(), v.violations().toString());
    }

    @Test
    void aMissingOrChangedNodeIsLost() {
        SoakLedger.Verdict missing = ledger().check("s", view(Map.of("/soak/named/n0/b0/n0-0", "n0-0"), 2,
                "2 cb-0"));
        assertEquals(1, missing.lost(), missing.violations().toString());
        SoakLedger.Verdict changed = ledger().check("s", view(Map.of("/soak/named/n0/b0/n0-0", "x",
                "/soak/seq/s1/b0/s-s1-0-0000000000", "s1-0"), 2, "2 cb-0"));
        assertEquals(1, changed.lost(), changed.violations().toString());
    }

    @Test
    void aCounterBehindItsAcknowledgedVersionOrWithAnotherTokenLostAnIncrement() {
        Map<String, String> nodes = Map.of("/soak/named/n0/b0/n0-0", "n0-0",
                "/soak/seq/s1/b0/s-s1-0-0000000000", "s1-0");
        assertEquals(1, ledger().check("s", view(nodes, 1, "1 ca-0")).lost());
        assertEquals(1, ledger().check("s", view(nodes, 2, "2 other")).lost());
        SoakLedger.Verdict skewed = ledger().check("s", view(nodes, 3, "2 ca-1"));
        assertEquals(1, skewed.violations().size(), skewed.violations().toString());
    }

    @Test
    void aTokenAtTwoPathsAndAPathAcknowledgedTwiceAreViolations() {
        SoakLedger l = ledger();
        SoakLedger.Verdict twice = l.check("s", view(Map.of("/soak/named/n0/b0/n0-0", "n0-0",
                "/soak/seq/s1/b0/s-s1-0-0000000000", "s1-0", "/soak/seq/s1/b0/s-s1-0-0000000001", "s1-0"), 2,
                "2 cb-0"));
        assertEquals(1, twice.violations().size(), twice.violations().toString());
        l.ackedNode("/soak/seq/s1/b0/s-s1-0-0000000000", "s1-9");
        l.ackedCounter("/soak/counter/c0", 2, "ca-9");
        assertEquals(2, l.check("s", view(Map.of("/soak/named/n0/b0/n0-0", "n0-0",
                "/soak/seq/s1/b0/s-s1-0-0000000000", "s1-0"), 2, "2 cb-0")).violations().size());
    }
}
