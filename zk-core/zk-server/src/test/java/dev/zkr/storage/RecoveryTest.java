package dev.zkr.storage;

import static dev.zkr.storage.LogTesting.payload;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.DataInput;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.NavigableSet;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Recovery = newest valid snapshot + log replay. The test state is the set of applied zxids (applying is
 * idempotent, like the data tree's txns), so "recovered everything" is "the set is 1..n".
 */
class RecoveryTest {

    @TempDir
    Path dir;

    private static final LogConfig SMALL = LogConfig.defaults().withSegmentBytes(8192).withPreallocateBytes(0);

    /** Writes the live set (possibly while it changes: a fuzzy snapshot), terminated by -1. */
    static SnapshotWriter bodyOf(NavigableSet<Long> state) {
        return out -> {
            for (long z : state) {
                out.writeLong(z);
            }
            out.writeLong(-1);
        };
    }

    static NavigableSet<Long> read(long zxid, DataInput in) throws IOException {
        NavigableSet<Long> s = new ConcurrentSkipListSet<>();
        for (long z = in.readLong(); z != -1; z = in.readLong()) {
            s.add(z);
        }
        return s;
    }

    static void apply(NavigableSet<Long> state, LogRecord r) {
        assertArrayEquals(payload(r.zxid()), r.payload(), "replayed payload intact");
        state.add(r.zxid());
    }

    private Recovery.Result<NavigableSet<Long>> recover() {
        try (TxnLog log = TxnLog.open(dir.resolve("log"), SMALL)) {
            return Recovery.recover(SnapshotStore.open(dir.resolve("snap")), log, RecoveryTest::read,
                    ConcurrentSkipListSet::new, RecoveryTest::apply);
        }
    }

    private static void assertAll(NavigableSet<Long> state, long n) {
        assertEquals(LongStream.rangeClosed(1, n).boxed().toList(), List.copyOf(state));
    }

    private void writeLog(long from, long to) {
        try (TxnLog log = TxnLog.open(dir.resolve("log"), SMALL)) {
            for (long z = from; z <= to; z++) {
                log.append(z, payload(z));
            }
        }
    }

    private static NavigableSet<Long> range(long from, long to) {
        NavigableSet<Long> s = new ConcurrentSkipListSet<>();
        LongStream.rangeClosed(from, to).forEach(s::add);
        return s;
    }

    @Test
    void emptyDataDirectory() {
        var r = recover();
        assertTrue(r.state().isEmpty());
        assertEquals(0, r.lastZxid());
        assertEquals(-1, r.snapshotZxid());
    }

    @Test
    void fuzzySnapshotPlusReplay() {
        writeLog(1, 300);
        // taken at 120 but it already contains txns up to 130 (written while they were applied)
        SnapshotStore.open(dir.resolve("snap")).write(120, bodyOf(range(1, 130)));
        var r = recover();
        assertAll(r.state(), 300);
        assertEquals(120, r.snapshotZxid());
        assertEquals(300, r.lastZxid());
        assertEquals(180, r.replayed());
    }

    @Test
    void corruptNewestSnapshotUsesTheOlderOne() {
        writeLog(1, 300);
        SnapshotStore snaps = SnapshotStore.open(dir.resolve("snap"));
        snaps.write(100, bodyOf(range(1, 100)));
        snaps.write(200, bodyOf(range(1, 200)));
        flipInBody(snaps.fileOf(200));
        var r = recover();
        assertAll(r.state(), 300);
        assertEquals(100, r.snapshotZxid());
        assertEquals(200, r.replayed());
    }

    @Test
    void allSnapshotsCorruptReplaysTheWholeLog() {
        writeLog(1, 300);
        SnapshotStore snaps = SnapshotStore.open(dir.resolve("snap"));
        snaps.write(100, bodyOf(range(1, 100)));
        snaps.write(200, bodyOf(range(1, 200)));
        flipInBody(snaps.fileOf(100));
        flipInBody(snaps.fileOf(200));
        var r = recover();
        assertAll(r.state(), 300);
        assertEquals(-1, r.snapshotZxid());
        assertEquals(300, r.replayed());
    }

    @Test
    void backgroundSnapshotsPurgeOnlyWhatRecoveryDoesNotNeed() throws Exception {
        Path logDir = dir.resolve("log");
        SnapshotStore snaps = SnapshotStore.open(dir.resolve("snap"));
        NavigableSet<Long> live = new ConcurrentSkipListSet<>();
        int started = 0;
        try (TxnLog log = TxnLog.open(logDir, SMALL);
             Snapshotter snapshotter = new Snapshotter(snaps, log, new Snapshotter.Policy(150, 0, 2),
                     zxid -> bodyOf(live))) {
            for (long z = 1; z <= 2000; z++) {
                log.append(z, payload(z));
                if (z % 25 == 0) {
                    log.sync().join();
                    for (long a = z - 24; a <= z; a++) {
                        live.add(a); // "apply" only what is durable
                    }
                    if (snapshotter.afterApply(z, 25, 25 * 100)) {
                        started++;
                    }
                }
            }
            long taken;
            do { // a snapshot started earlier may still be running; then take ours after it
                taken = snapshotter.snapshotNow(2000).get(10, TimeUnit.SECONDS);
            } while (taken != 2000);
            assertTrue(started >= 3, "snapshots started: " + started);
            assertTrue(snaps.list().size() <= 2, snaps.list().toString());
            assertTrue(log.startsAfterZxid() > 0, "old segments purged");
            long oldestKept = snaps.list().get(snaps.list().size() - 1);
            assertTrue(log.startsAfterZxid() <= oldestKept, "log reaches back to the oldest kept snapshot");
        }
        var r = recover();
        assertAll(r.state(), 2000);
        assertEquals(2000, r.snapshotZxid());

        // the newest snapshot is damaged: the older kept one plus the retained log still recover everything
        List<Long> kept = snaps.list();
        assertEquals(2, kept.size());
        flipInBody(snaps.fileOf(kept.get(0)));
        r = recover();
        assertAll(r.state(), 2000);
        assertEquals(kept.get(1), r.snapshotZxid());

        // every kept snapshot damaged and the log purged: refuse with a clear error instead of losing data
        flipInBody(snaps.fileOf(kept.get(1)));
        StorageException e = assertThrows(StorageException.class, this::recover);
        assertTrue(e.getMessage().contains("no valid snapshot"), e.getMessage());
    }

    @Test
    void logEndingBeforeTheSnapshotRestartsAfterIt() throws IOException {
        writeLog(1, 100);
        SnapshotStore snaps = SnapshotStore.open(dir.resolve("snap"));
        snaps.write(100, bodyOf(range(1, 100)));
        // outside damage removes the last records, which the snapshot covers
        Path segment = LogTesting.lastSegment(dir.resolve("log"));
        try (var ch = java.nio.channels.FileChannel.open(segment, java.nio.file.StandardOpenOption.WRITE)) {
            ch.truncate(ch.size() - 5);
        }
        var first = LogTesting.captureStderr(this::recover);
        assertEquals(100, first.value().lastZxid());
        assertAll(first.value().state(), 100);
        assertEquals(1, first.lines("before snapshot"), first.stderr());
        try (TxnLog log = TxnLog.open(dir.resolve("log"), SMALL)) {
            assertEquals(100, log.lastZxid());
            assertEquals(100, log.startsAfterZxid(), "the records the snapshot covers are gone: no gap to read across");
            assertEquals(List.of(), LogTesting.readAll(log, 100));
            assertThrows(IllegalArgumentException.class, () -> log.append(100, payload(100)));
            for (long z = 101; z <= 150; z++) {
                log.append(z, payload(z));
            }
        }
        var second = recover();
        assertAll(second.state(), 150);
        assertEquals(100, second.snapshotZxid());
        // without the snapshot nothing can be recovered, and recovery says so instead of starting empty
        flipInBody(snaps.fileOf(100));
        StorageException e = assertThrows(StorageException.class, this::recover);
        assertTrue(e.getMessage().contains("no valid snapshot"), e.getMessage());
    }

    private static void flipInBody(Path file) {
        try {
            TornTailTest.flip(file, 16 + 3, 0x04);
        } catch (IOException e) {
            throw new StorageException("flip failed", e);
        }
    }
}
