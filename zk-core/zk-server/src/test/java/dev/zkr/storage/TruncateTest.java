package dev.zkr.storage;

import static dev.zkr.storage.LogTesting.payload;
import static dev.zkr.storage.LogTesting.readAll;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link TxnLog#truncateAfter}: the follower TRUNC case. */
class TruncateTest {

    @TempDir
    Path dir;

    static final LogConfig SMALL = LogConfig.defaults().withSegmentBytes(4096);

    /** A payload different from {@link LogTesting#payload} for the same zxid: the "new leader's" content. */
    static byte[] newPayload(long zxid) {
        byte[] b = payload(zxid + 1_000_003);
        return b.length == 0 ? new byte[] {42} : b;
    }

    static void fill(TxnLog log, long from, long to) {
        for (long z = from; z <= to; z++) {
            log.append(z, payload(z));
            if (z % 10 == 0) {
                log.sync().join(); // batches of 10, so segments roll
            }
        }
        log.sync().join();
    }

    /** Records 1..keep with the old payload, then keep+1..last with the new one. */
    static void assertTruncatedAndContinued(List<LogRecord> records, long keep, long last) {
        assertEquals(last, records.size());
        for (int i = 0; i < records.size(); i++) {
            long z = i + 1;
            assertEquals(z, records.get(i).zxid());
            assertArrayEquals(z <= keep ? payload(z) : newPayload(z), records.get(i).payload(), "payload of " + z);
        }
    }

    @Test
    void truncateInsideTheActiveSegmentThenReuseZxidsWithNewContent() {
        try (TxnLog log = TxnLog.open(dir)) {
            fill(log, 1, 50);
            log.truncateAfter(30);
            assertEquals(30, log.lastZxid());
            assertEquals(30, log.durableZxid());
            assertEquals(30, readAll(log, 0).size());
            for (long z = 31; z <= 40; z++) {
                log.append(z, newPayload(z));
            }
            log.sync().join();
            assertTruncatedAndContinued(readAll(log, 0), 30, 40);
        }
        try (TxnLog log = TxnLog.open(dir)) {
            assertTruncatedAndContinued(readAll(log, 0), 30, 40);
            assertEquals(40, log.lastZxid());
        }
    }

    @Test
    void truncateAcrossSegmentsDeletesTheLaterOnes() {
        try (TxnLog log = TxnLog.open(dir, SMALL)) {
            fill(log, 1, 400);
            int before = log.segmentFiles().size();
            assertTrue(before > 5, before + " segments");
            log.truncateAfter(57);
            assertTrue(log.segmentFiles().size() < before);
            for (long z = 58; z <= 100; z++) {
                log.append(z, newPayload(z));
            }
            log.sync().join();
        }
        try (TxnLog log = TxnLog.open(dir, SMALL)) {
            assertTruncatedAndContinued(readAll(log, 0), 57, 100);
            assertTruncatedAndContinued(readAll(log, 0), 57, 100);
            assertEquals(List.of(), intents(dir));
        }
    }

    @Test
    void recordsQueuedBeforeTheTruncateAreRemovedAndLaterOnesKept() {
        try (TxnLog log = TxnLog.open(dir)) {
            fill(log, 1, 10);
            for (long z = 11; z <= 20; z++) {
                log.append(z, payload(z)); // maybe not yet written when the truncate is queued
            }
            log.truncateAfter(15);
            log.appendAsync(16, newPayload(16)).join();
            assertTruncatedAndContinued(readAll(log, 0), 15, 16);
        }
    }

    @Test
    void truncatingAtTheEndChangesNothing() {
        try (TxnLog log = TxnLog.open(dir)) {
            fill(log, 1, 10);
            List<Path> files = log.segmentFiles();
            log.truncateAfter(10);
            log.truncateAfter(12);
            assertEquals(files, log.segmentFiles());
            assertEquals(10, readAll(log, 0).size());
        }
    }

    @Test
    void truncateBelowTheCommitMarkIsRefusedAndLeavesTheLogAlone() {
        try (TxnLog log = TxnLog.open(dir)) {
            log.recordCommitMark(20);
            fill(log, 1, 30);
            assertEquals(20, log.durableCommitMark());
            assertThrows(TruncateBelowCommitException.class, () -> log.truncateAfter(19));
            log.truncateAfter(20); // exactly at the mark: allowed
            assertEquals(20, log.lastZxid());
            log.appendAsync(21, newPayload(21)).join();
        }
        try (TxnLog log = TxnLog.open(dir)) {
            assertEquals(20, log.commitMarkAtOpen());
            assertThrows(TruncateBelowCommitException.class, () -> log.truncateAfter(5));
            assertTruncatedAndContinued(readAll(log, 0), 20, 21);
        }
    }

    @Test
    void aV1LogCountsAsCommittedAndCannotBeTruncated() throws IOException {
        OldLogs.writeV1Segment(dir, 0, 1, 10, 3);
        try (TxnLog log = TxnLog.open(dir)) {
            assertThrows(TruncateBelowCommitException.class, () -> log.truncateAfter(9));
            fill(log, 11, 15);
            log.truncateAfter(12); // above the v1 part: allowed
            assertEquals(12, readAll(log, 0).size());
        }
    }

    @Test
    void truncateToTheLogStartLeavesAnEmptyLogContinuingAfterIt() {
        try (TxnLog log = TxnLog.open(dir, SMALL)) {
            fill(log, 1, 300);
            log.purgeUpTo(100);
            long start = log.startsAfterZxid();
            assertTrue(start > 0);
            assertThrows(IllegalArgumentException.class, () -> log.truncateAfter(start - 1));
            log.truncateAfter(start);
            assertEquals(start, log.lastZxid());
            assertEquals(0, readAll(log, start).size());
            log.appendAsync(start + 1, newPayload(start + 1)).join();
        }
        try (TxnLog log = TxnLog.open(dir, SMALL)) {
            List<LogRecord> records = readAll(log, log.startsAfterZxid());
            assertEquals(1, records.size());
            assertArrayEquals(newPayload(records.get(0).zxid()), records.get(0).payload());
        }
    }

    static List<Path> intents(Path dir) {
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(p -> p.getFileName().toString().startsWith(LogTruncation.INTENT_PREFIX)).toList();
        } catch (IOException e) {
            throw new StorageException(e.toString(), e);
        }
    }
}
