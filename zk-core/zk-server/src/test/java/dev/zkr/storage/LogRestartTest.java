package dev.zkr.storage;

import static dev.zkr.storage.LogTesting.payload;
import static dev.zkr.storage.LogTesting.readAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link TxnLog#restartAfter}: the log's history replaced by a snapshot (P3 c), with no gap left behind. */
class LogRestartTest {

    @TempDir
    Path dir;

    private static final LogConfig SMALL = LogConfig.defaults().withSegmentBytes(4096).withPreallocateBytes(0);

    private List<String> files() throws IOException {
        try (var s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    @Test
    void theLogStartsAfterTheSnapshotAndContinuesThere() throws IOException {
        try (TxnLog log = TxnLog.open(dir, SMALL)) {
            for (long z = 1; z <= 100; z++) {
                log.appendAsync(z, payload(z)).join(); // one batch each: several segments
            }
            assertTrue(log.segmentFiles().size() > 3, log.segmentFiles().toString());
            log.restartAfter(500);
            assertEquals(500, log.startsAfterZxid());
            assertEquals(500, log.lastZxid());
            assertEquals(500, log.durableZxid());
            assertEquals(500, log.durableCommitMark(), "the snapshot's zxid is committed");
            assertEquals(List.of("log." + StorageFiles.hex(501)), files());
            assertEquals(List.of(), readAll(log, 500));
            assertThrows(IllegalArgumentException.class, () -> log.append(500, payload(500)));
            for (long z = 501; z <= 520; z++) {
                log.append(z, payload(z));
            }
        }
        try (TxnLog log = TxnLog.open(dir, SMALL)) {
            assertEquals(500, log.startsAfterZxid());
            assertEquals(520, log.lastZxid());
            assertEquals(500, log.commitMarkAtOpen());
            List<LogRecord> records = readAll(log, log.startsAfterZxid());
            assertEquals(20, records.size());
            assertEquals(501, records.get(0).zxid());
        }
    }

    @Test
    void appendsQueuedBeforeTheRestartAreWrittenFirstThenDropped() {
        try (TxnLog log = TxnLog.open(dir, SMALL)) {
            for (long z = 1; z <= 50; z++) {
                log.append(z, payload(z)); // likely still queued when the restart is
            }
            log.restartAfter(60);
            log.appendAsync(61, payload(61)).join();
            assertEquals(List.of(61L), readAll(log, 60).stream().map(LogRecord::zxid).toList());
        }
        try (TxnLog log = TxnLog.open(dir, SMALL)) {
            assertEquals(60, log.startsAfterZxid());
            assertEquals(61, log.lastZxid());
        }
    }

    @Test
    void aRestartThatWouldDropRecordsAfterItIsRefused() throws IOException {
        try (TxnLog log = TxnLog.open(dir, SMALL)) {
            for (long z = 1; z <= 30; z++) {
                log.append(z, payload(z));
            }
            assertThrows(IllegalArgumentException.class, () -> log.restartAfter(30));
            assertThrows(IllegalArgumentException.class, () -> log.restartAfter(10));
            log.sync().join();
            assertEquals(30, readAll(log, 0).size());
        }
        assertEquals(0, files().stream().filter(f -> f.startsWith(LogReset.INTENT_PREFIX)).count());
    }

    @Test
    void anInterruptedRestartIsCompletedAtOpen() throws IOException {
        try (TxnLog log = TxnLog.open(dir, SMALL)) {
            for (long z = 1; z <= 100; z++) {
                log.append(z, payload(z));
            }
        }
        // the intent is durable, nothing else done yet (the crash test kills at every later step too)
        Files.createFile(dir.resolve(LogReset.INTENT_PREFIX + StorageFiles.hex(300)));
        var opened = LogTesting.captureStderr(() -> TxnLog.open(dir, SMALL));
        try (TxnLog log = opened.value()) {
            assertEquals(1, opened.lines("interrupted restart"), opened.stderr());
            assertEquals(300, log.startsAfterZxid());
            assertEquals(300, log.lastZxid());
            assertEquals(List.of("log." + StorageFiles.hex(301)), files());
            log.append(301, payload(301));
        }
    }
}
