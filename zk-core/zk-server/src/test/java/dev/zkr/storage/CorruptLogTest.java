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

/** Damage that is not a torn tail is a hard, typed error, never a silent skip of acknowledged records. */
class CorruptLogTest {

    @TempDir
    Path dir;

    private static final LogConfig SMALL = LogConfig.defaults().withSegmentBytes(4096).withPreallocateBytes(0);

    /** Writes 1..n, one fsynced batch per {@code batch} records. */
    private void write(int n, int batch, LogConfig config) {
        try (TxnLog log = TxnLog.open(dir, config)) {
            for (int z = 1; z <= n; z++) {
                log.append(z, payload(z));
                if (z % batch == 0) {
                    log.sync().join();
                }
            }
        }
    }

    private long offsetOf(int zxid) throws IOException {
        return LogTesting.recordEnds(LogTesting.lastSegment(dir))[zxid - 1];
    }

    @Test
    void corruptionFollowedByLaterBatchesInLastSegmentFailsOpen() throws IOException {
        write(30, 5, LogConfig.defaults());
        TornTailTest.flip(LogTesting.lastSegment(dir), offsetOf(7) + 20, 0x40);
        CorruptLogException e = assertThrows(CorruptLogException.class, () -> TxnLog.open(dir));
        assertTrue(e.getMessage().contains("log.0000000000000001") && e.getMessage().contains("offset"),
                e.getMessage());
    }

    @Test
    void damageInsideTheLastUnfinishedBatchIsATornTail() throws IOException {
        // one batch of 10: a hole in record 4 with valid records after it in the same batch can come from a
        // power loss during that batch's write, which was never acknowledged
        write(10, 10, LogConfig.defaults());
        TornTailTest.flip(LogTesting.lastSegment(dir), offsetOf(4) + 18, 0x01);
        var opened = LogTesting.captureStderr(() -> {
            try (TxnLog log = TxnLog.open(dir)) {
                return readAll(log, 0);
            }
        });
        assertEquals(1, opened.lines("Truncated torn tail"));
        assertEquals(List.of(1L, 2L, 3L), opened.value().stream().map(LogRecord::zxid).toList());
    }

    @Test
    void corruptionInAnOlderSegmentFailsTheRead() throws IOException {
        write(200, 3, SMALL);
        List<Path> segments;
        try (TxnLog log = TxnLog.open(dir, SMALL)) {
            segments = log.segmentFiles();
        }
        assertTrue(segments.size() >= 4, segments.toString());
        Path older = segments.get(1);
        TornTailTest.flip(older, Files.size(older) / 2, 0x10);
        try (TxnLog log = TxnLog.open(dir, SMALL)) {
            CorruptLogException e = assertThrows(CorruptLogException.class, () -> readAll(log, 0));
            assertTrue(e.getMessage().contains(older.getFileName().toString()), e.getMessage());
        }
    }

    @Test
    void truncatedOlderSegmentIsAGap() throws IOException {
        write(200, 3, SMALL);
        List<Path> segments;
        try (TxnLog log = TxnLog.open(dir, SMALL)) {
            segments = log.segmentFiles();
        }
        Path older = segments.get(1);
        try (var ch = java.nio.channels.FileChannel.open(older, java.nio.file.StandardOpenOption.WRITE)) {
            ch.truncate(ch.size() - 5);
        }
        try (TxnLog log = TxnLog.open(dir, SMALL)) {
            assertThrows(CorruptLogException.class, () -> readAll(log, 0));
        }
    }

    @Test
    void missingMiddleSegmentIsAGap() throws IOException {
        write(200, 3, SMALL);
        List<Path> segments;
        try (TxnLog log = TxnLog.open(dir, SMALL)) {
            segments = log.segmentFiles();
        }
        Files.delete(segments.get(2));
        try (TxnLog log = TxnLog.open(dir, SMALL)) {
            CorruptLogException e = assertThrows(CorruptLogException.class, () -> readAll(log, 0));
            assertTrue(e.getMessage().contains("gap"), e.getMessage());
        }
    }

    @Test
    void damagedSegmentHeaderFailsOpen() throws IOException {
        write(20, 3, LogConfig.defaults());
        TornTailTest.flip(LogTesting.lastSegment(dir), 9, 0x01);
        assertThrows(CorruptLogException.class, () -> TxnLog.open(dir));
    }
}
