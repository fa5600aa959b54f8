package dev.zkr.storage;

import static dev.zkr.storage.LogTesting.payload;
import static dev.zkr.storage.LogTesting.readAll;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The commit mark: carried by batch trailers and segment headers (v2), read back at open; v1 logs still open. */
class CommitMarkTest {

    @TempDir
    Path dir;

    private static void assertRecords(List<LogRecord> records, long first, long last) {
        assertEquals(last - first + 1, records.size(), "records " + first + ".." + last);
        for (int i = 0; i < records.size(); i++) {
            assertEquals(first + i, records.get(i).zxid());
            assertArrayEquals(payload(first + i), records.get(i).payload(), "payload of " + (first + i));
        }
    }

    @Test
    void markRidesOnTheNextBatchWithoutAnExtraFsync() {
        try (TxnLog log = TxnLog.open(dir)) {
            assertEquals(0, log.commitMarkAtOpen());
            for (long z = 1; z <= 5; z++) {
                log.append(z, payload(z));
            }
            log.sync().join();
            long fsyncs = log.fsyncCount();
            log.recordCommitMark(3);
            log.sync().join(); // no record queued: nothing written, the mark waits for the next batch
            assertEquals(fsyncs, log.fsyncCount());
            assertEquals(0, log.durableCommitMark());
            log.append(6, payload(6));
            log.sync().join();
            assertEquals(fsyncs + 1, log.fsyncCount(), "the mark went out with the batch's own fsync");
            assertEquals(3, log.durableCommitMark());
        }
        try (TxnLog log = TxnLog.open(dir)) {
            assertEquals(3, log.commitMarkAtOpen());
            assertRecords(readAll(log, 0), 1, 6);
        }
    }

    @Test
    void aBatchCarriesAtMostItsOwnLastZxidAndMarksNeverShrink() {
        try (TxnLog log = TxnLog.open(dir)) {
            log.recordCommitMark(100); // known committed beyond this log's end
            log.append(1, payload(1));
            log.sync().join();
            assertEquals(1, log.durableCommitMark());
            log.recordCommitMark(0);
            log.append(2, payload(2));
            log.sync().join();
            assertEquals(2, log.durableCommitMark(), "the declared 100 still applies, capped at 2");
        }
        try (TxnLog log = TxnLog.open(dir)) {
            assertEquals(2, log.commitMarkAtOpen());
        }
    }

    @Test
    void newSegmentHeadersCarryTheMarkSoAnEmptyActiveSegmentKeepsIt() {
        try (TxnLog log = TxnLog.open(dir, LogConfig.defaults().withSegmentBytes(4096))) {
            for (long z = 1; z <= 200; z++) {
                log.recordCommitMark(z - 1);
                log.appendAsync(z, payload(z)).join();
            }
            assertTrue(log.segmentFiles().size() > 3);
            log.continueAfter(300); // an empty active segment: only its header holds the mark
            assertEquals(199, log.durableCommitMark());
        }
        try (TxnLog log = TxnLog.open(dir)) {
            assertEquals(199, log.commitMarkAtOpen());
        }
    }

    @Test
    void aV1LogOpensWithEveryRecordCommittedAndContinuesInAV2Segment() throws IOException {
        OldLogs.writeV1Segment(dir, 0, 1, 40, 7);
        OldLogs.writeV1Segment(dir, 40, 41, 90, 5);
        try (TxnLog log = TxnLog.open(dir)) {
            assertEquals(90, log.commitMarkAtOpen(), "v1 counted every durable record as committed");
            assertEquals(90, log.lastZxid());
            assertRecords(readAll(log, 0), 1, 90);
            assertEquals(3, log.segmentFiles().size(), "appends go to a new v2 segment");
            for (long z = 91; z <= 95; z++) {
                log.append(z, payload(z));
            }
            log.sync().join();
        }
        try (TxnLog log = TxnLog.open(dir)) {
            assertEquals(95, log.lastZxid());
            assertEquals(90, log.commitMarkAtOpen(), "the v2 segment's header and trailers carry the v1 mark");
            assertRecords(readAll(log, 0), 1, 95);
            assertRecords(readAll(log, 85), 86, 95);
        }
    }

    @Test
    void anEmptyV1SegmentIsReplacedByAV2One() throws IOException {
        OldLogs.writeV1Segment(dir, 0, 1, 10, 3);
        OldLogs.writeV1Segment(dir, 10, 11, 10, 1); // header only
        try (TxnLog log = TxnLog.open(dir)) {
            assertEquals(2, log.segmentFiles().size());
            log.appendAsync(11, payload(11)).join();
        }
        try (TxnLog log = TxnLog.open(dir)) {
            assertRecords(readAll(log, 0), 1, 11);
            assertEquals(10, log.commitMarkAtOpen(), "11 was appended without a declared mark");
        }
    }

    @Test
    void aTornV1TailIsTruncatedAndTheMarkIsItsLastIntactRecord() throws IOException {
        Path seg = OldLogs.writeV1Segment(dir, 0, 1, 30, 30);
        long[] ends = LogTesting.recordEnds(seg);
        cut(seg, ends[25] + 9); // inside record 26
        try (TxnLog log = TxnLog.open(dir)) {
            assertEquals(25, log.lastZxid());
            assertEquals(25, log.commitMarkAtOpen());
            assertRecords(readAll(log, 0), 1, 25);
        }
    }

    @Test
    void aTornV2TailFallsBackToTheMarkOfTheLastWholeBatch() throws IOException {
        try (TxnLog log = TxnLog.open(dir, LogConfig.defaults().withPreallocateBytes(0))) {
            for (long z = 1; z <= 30; z++) {
                log.recordCommitMark(z - 1);
                log.appendAsync(z, payload(z)).join(); // one batch per record: the mark of batch z is z - 1
            }
        }
        Path seg = LogTesting.lastSegment(dir);
        long[] ends = LogTesting.recordEnds(seg);
        cut(seg, ends[30] - 3); // inside the mark trailer of record 30
        try (TxnLog log = TxnLog.open(dir)) {
            assertEquals(29, log.lastZxid());
            assertEquals(28, log.commitMarkAtOpen());
        }
    }

    @Test
    void mixedDirectoryWithTornV2TailAfterV1Segments() throws IOException {
        OldLogs.writeV1Segment(dir, 0, 1, 20, 4);
        try (TxnLog log = TxnLog.open(dir, LogConfig.defaults().withPreallocateBytes(0))) {
            for (long z = 21; z <= 24; z++) {
                log.appendAsync(z, payload(z)).join();
            }
        }
        Path v2 = LogTesting.lastSegment(dir);
        long[] ends = LogTesting.recordEnds(v2);
        cut(v2, ends[2] + 5); // keeps 21, 22 of the v2 segment
        try (TxnLog log = TxnLog.open(dir)) {
            assertEquals(22, log.lastZxid());
            assertEquals(20, log.commitMarkAtOpen(), "nobody declared a mark since the v1 part");
            assertRecords(readAll(log, 0), 1, 22);
        }
    }

    private static void cut(Path file, long size) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
            ch.truncate(size);
        }
        assertEquals(size, Files.size(file));
    }
}
