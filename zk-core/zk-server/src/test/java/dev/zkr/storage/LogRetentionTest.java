package dev.zkr.storage;

import static dev.zkr.storage.LogTesting.readAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The log retention window ({@link LogConfig#retainTxns()}) for follower catch-up. */
class LogRetentionTest {

    @TempDir
    Path dir;

    private long startAfterPurge(long retain, long purgeTo, long newestSnapshot) {
        Path d = dir.resolve("r" + retain + "-" + purgeTo);
        try (TxnLog log = TxnLog.open(d, TruncateTest.SMALL.withRetainTxns(retain))) {
            TruncateTest.fill(log, 1, 400);
            assertTrue(log.segmentFiles().size() > 8);
            log.purgeUpTo(purgeTo, newestSnapshot);
            long start = log.startsAfterZxid();
            assertEquals(400 - start, readAll(log, start).size(), "what is left reads back");
            return start;
        }
    }

    @Test
    void withoutAWindowSnapshotsAloneDecide() {
        long start = startAfterPurge(0, 350, 350);
        assertTrue(start > 300 && start <= 350, "purged up to " + start);
    }

    @Test
    void theWindowKeepsAtLeastThatManyRecordsBehindTheNewestSnapshot() {
        long start = startAfterPurge(100, 350, 350);
        assertTrue(350 - start >= 100, "kept only " + (350 - start) + " records behind the snapshot");
        assertTrue(350 - start < 100 + 60, "kept far more than the window: " + (350 - start));
    }

    @Test
    void theWindowCountsBackFromTheNewestSnapshotNotFromTheOldestKept() {
        long start = startAfterPurge(100, 150, 380);
        assertTrue(start > 100 && start <= 150, "the oldest kept snapshot is the bound here: " + start);
    }

    @Test
    void aWindowLargerThanTheLogKeepsEverything() {
        assertEquals(0, startAfterPurge(10_000, 350, 350));
    }

    @Test
    void theWindowSurvivesAReopen() {
        Path d = dir.resolve("reopen");
        try (TxnLog log = TxnLog.open(d, TruncateTest.SMALL)) {
            TruncateTest.fill(log, 1, 400);
        }
        try (TxnLog log = TxnLog.open(d, TruncateTest.SMALL.withRetainTxns(200))) {
            log.purgeUpTo(390, 390); // counts segments written before this open
            assertTrue(390 - log.startsAfterZxid() >= 200);
        }
    }
}
