package dev.zkr.server.replication;

import dev.zkr.consensus.Entry;
import dev.zkr.consensus.EpochTable;
import dev.zkr.consensus.Zxid;
import dev.zkr.storage.LogConfig;
import dev.zkr.storage.TxnLog;
import dev.zkr.storage.V1Logs;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link TxnLogView}: the consensus core's view of a real transaction log. */
class TxnLogViewTest {

    @TempDir
    Path dir;

    private static long z(long epoch, long counter) {
        return Zxid.of(epoch, counter);
    }

    private static byte[] bytes(long zxid) {
        // 300 bytes, so that a 4 KiB segment rolls over every dozen records
        return ("record " + Zxid.str(zxid) + " ".repeat(290)).getBytes(StandardCharsets.UTF_8);
    }

    private static void write(TxnLog log, long... zxids) {
        for (long zxid : zxids) {
            log.append(zxid, bytes(zxid));
        }
        log.sync().join();
    }

    private static EpochTable table(long... lasts) {
        EpochTable.Builder b = new EpochTable.Builder();
        for (long l : lasts) {
            b.add(l);
        }
        return b.build();
    }

    private static List<Long> zxids(List<Entry> entries) {
        return entries.stream().map(Entry::zxid).toList();
    }

    @Test
    void anEmptyLog() {
        try (TxnLog log = TxnLog.open(dir)) {
            TxnLogView view = new TxnLogView(log, () -> 0);
            assertEquals(0, view.lastZxid());
            assertEquals(0, view.baseZxid());
            assertEquals(0, view.snapshotZxid());
            assertEquals(EpochTable.EMPTY, view.epochTable());
            assertEquals(List.of(), view.entriesAfter(0));
            assertEquals(0, view.commitMark());
        }
    }

    @Test
    void aRecoveredLogShowsItsRecordsEpochsAndCommitMark() {
        try (TxnLog log = TxnLog.open(dir)) {
            write(log, z(1, 0), z(1, 1), z(1, 2), z(1, 3));
            log.recordCommitMark(z(1, 3));
            write(log, z(2, 0), z(2, 1), z(2, 2));
        }
        try (TxnLog log = TxnLog.open(dir)) {
            TxnLogView view = new TxnLogView(log, () -> z(1, 2));
            assertEquals(z(2, 2), view.lastZxid());
            assertEquals(0, view.baseZxid());
            assertEquals(z(1, 2), view.snapshotZxid());
            assertEquals(table(z(1, 3), z(2, 2)), view.epochTable());
            assertEquals(z(1, 3), view.commitMark());
            List<Entry> after = view.entriesAfter(z(1, 2));
            assertEquals(List.of(z(1, 3), z(2, 0), z(2, 1), z(2, 2)), zxids(after));
            for (Entry e : after) {
                assertArrayEquals(bytes(e.zxid()), e.payload());
            }
        }
    }

    @Test
    void recordsHandedToTheLogShowBeforeAndAfterTheyAreDurable() {
        recordsShowBeforeAndAfterTheyAreDurable(TxnLogView.RECENT_RECORDS);
    }

    /** A standalone server's view keeps no recent records in memory, and shows the same records from the log. */
    @Test
    void aViewWithoutRecentRecordsShowsTheSameFromTheLog() {
        recordsShowBeforeAndAfterTheyAreDurable(0);
    }

    private void recordsShowBeforeAndAfterTheyAreDurable(int recentRecords) {
        try (TxnLog log = TxnLog.open(dir)) {
            write(log, z(1, 0), z(1, 1));
            TxnLogView view = new TxnLogView(log, () -> 0, recentRecords, null, null);
            Entry epoch2 = new Entry(z(2, 0), bytes(z(2, 0)));
            Entry next = new Entry(z(2, 1), bytes(z(2, 1)));
            view.appended(epoch2);
            view.appended(next);
            // not yet written: the view holds them
            assertEquals(z(2, 1), view.lastZxid());
            assertEquals(table(z(1, 1), z(2, 1)), view.epochTable());
            assertEquals(List.of(z(1, 1), z(2, 0), z(2, 1)), zxids(view.entriesAfter(z(1, 0))));
            // written and durable, notice not yet seen: each record still once
            write(log, z(2, 0), z(2, 1));
            assertEquals(List.of(z(1, 1), z(2, 0), z(2, 1)), zxids(view.entriesAfter(z(1, 0))));
            view.durable(z(2, 1));
            assertEquals(List.of(z(2, 0), z(2, 1)), zxids(view.entriesAfter(z(1, 1))));
            assertEquals(List.of(), view.entriesAfter(z(2, 1)));
            assertEquals(Math.min(2, recentRecords), view.recentHeld());
        }
    }

    @Test
    void afterTruncateAfterTheViewEndsThereAndContinues() {
        try (TxnLog log = TxnLog.open(dir)) {
            write(log, z(1, 0), z(1, 1), z(1, 2), z(2, 0), z(2, 1), z(3, 0));
            TxnLogView view = new TxnLogView(log, () -> 0);
            assertEquals(table(z(1, 2), z(2, 1), z(3, 0)), view.epochTable());

            log.truncateAfter(z(2, 0));
            view.truncatedAfter(z(2, 0));
            assertEquals(z(2, 0), view.lastZxid());
            assertEquals(table(z(1, 2), z(2, 0)), view.epochTable());
            assertEquals(List.of(z(2, 0)), zxids(view.entriesAfter(z(1, 2))));

            log.truncateAfter(z(1, 1));
            view.truncatedAfter(z(1, 1));
            assertEquals(table(z(1, 1)), view.epochTable());

            view.appended(new Entry(z(4, 0), bytes(z(4, 0))));
            write(log, z(4, 0));
            view.durable(z(4, 0));
            assertEquals(table(z(1, 1), z(4, 0)), view.epochTable());
            assertEquals(List.of(z(1, 1), z(4, 0)), zxids(view.entriesAfter(z(1, 0))));
        }
        try (TxnLog log = TxnLog.open(dir)) {
            TxnLogView view = new TxnLogView(log, () -> 0);
            assertEquals(table(z(1, 1), z(4, 0)), view.epochTable());
            assertEquals(z(4, 0), view.lastZxid());
        }
    }

    @Test
    void afterAPurgeTheBaseMovesAndOnlyLaterEpochsShow() {
        try (TxnLog log = TxnLog.open(dir, LogConfig.defaults().withSegmentBytes(4096).withPreallocateBytes(0))) {
            long last = 0;
            for (long c = 0; c <= 40; c++) {
                last = z(1, c);
                write(log, last);
            }
            for (long c = 0; c <= 40; c++) {
                last = z(2, c);
                write(log, last);
            }
            assertTrue(log.purgeUpTo(z(1, 30)) > 0, "segments purged");
            long base = log.startsAfterZxid();
            assertTrue(base > 0 && base <= z(1, 30), "base " + Zxid.str(base));
            TxnLogView view = new TxnLogView(log, () -> z(1, 30));
            assertEquals(base, view.baseZxid());
            assertEquals(z(2, 40), view.lastZxid());
            assertEquals(table(z(1, 40), z(2, 40)), view.epochTable());
            assertEquals(z(1, 40) - base + 41, view.entriesAfter(base).size());

            assertTrue(log.purgeUpTo(z(2, 30)) > 0, "segments purged");
            assertTrue(log.startsAfterZxid() >= z(2, 0), "base " + Zxid.str(log.startsAfterZxid()));
            assertEquals(table(z(2, 40)), view.epochTable(), "epoch 1 lies wholly before the base");
            assertEquals(z(2, 40), view.lastZxid());
        }
    }

    @Test
    void aV1LogCountsEveryRecordCommitted() throws IOException {
        V1Logs.write(dir, 0, 1, 9);
        try (TxnLog log = TxnLog.open(dir)) {
            TxnLogView view = new TxnLogView(log, () -> 0);
            assertEquals(9, view.lastZxid());
            assertEquals(9, view.commitMark());
            assertEquals(table(9), view.epochTable());
            List<Entry> after = view.entriesAfter(6);
            assertEquals(List.of(7L, 8L, 9L), zxids(after));
            assertArrayEquals(V1Logs.payload(8), after.get(1).payload());
        }
    }
}
