package dev.zkr.storage;

import static dev.zkr.storage.LogTesting.payload;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.NavigableSet;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Recovery up to a zxid (docs/replication.md, Persistence rules, P7): the rest of the log stays as an uncommitted
 * tail.
 */
class RecoveryToCommitTest {

    @TempDir
    Path dir;

    private Path logDir() {
        return dir.resolve("log");
    }

    private SnapshotStore snaps() {
        return SnapshotStore.open(dir.resolve("snap"));
    }

    /** Writes records from..to, one batch each, declaring {@code mark} before every batch. */
    private void writeLog(long from, long to, long mark) {
        try (TxnLog log = TxnLog.open(logDir())) {
            for (long z = from; z <= to; z++) {
                log.recordCommitMark(Math.min(mark, z));
                log.appendAsync(z, payload(z)).join();
            }
        }
    }

    private Recovery.Result<NavigableSet<Long>> recoverCommitted() {
        try (TxnLog log = TxnLog.open(logDir())) {
            return Recovery.recoverCommitted(snaps(), log, RecoveryTest::read, ConcurrentSkipListSet::new,
                    RecoveryTest::apply);
        }
    }

    private static List<Long> range(long from, long to) {
        return LongStream.rangeClosed(from, to).boxed().toList();
    }

    @Test
    void appliesUpToTheCommitMarkAndReportsTheTail() {
        writeLog(1, 50, 40);
        var r = recoverCommitted();
        assertEquals(range(1, 40), List.copyOf(r.state()));
        assertEquals(40, r.appliedZxid());
        assertEquals(40, r.commitMark());
        assertEquals(50, r.lastLoggedZxid());
        assertTrue(r.hasUncommittedTail());
        try (TxnLog log = TxnLog.open(logDir())) {
            assertEquals(range(41, 50), LogTesting.readAll(log, r.appliedZxid()).stream().map(LogRecord::zxid)
                    .toList(), "the tail stays in the log");
        }
    }

    @Test
    void aSnapshotNewerThanTheMarkIsTheFloor() {
        writeLog(1, 50, 10);
        snaps().write(30, RecoveryTest.bodyOf(new ConcurrentSkipListSet<>(range(1, 30))));
        var r = recoverCommitted();
        assertEquals(range(1, 30), List.copyOf(r.state()));
        assertEquals(30, r.appliedZxid());
        assertEquals(50, r.lastZxid());
    }

    @Test
    void standaloneRecoveryStillAppliesEveryDurableRecord() {
        writeLog(1, 50, 10);
        try (TxnLog log = TxnLog.open(logDir())) {
            var r = Recovery.recover(snaps(), log, RecoveryTest::read, ConcurrentSkipListSet::new,
                    RecoveryTest::apply);
            assertEquals(range(1, 50), List.copyOf(r.state()));
            assertEquals(50, r.appliedZxid());
            assertFalse(r.hasUncommittedTail());
        }
    }

    @Test
    void aV1LogIsAllCommitted() throws Exception {
        OldLogs.writeV1Segment(logDir(), 0, 1, 25, 4);
        var r = recoverCommitted();
        assertEquals(range(1, 25), List.copyOf(r.state()));
        assertFalse(r.hasUncommittedTail());
    }

    @Test
    void explicitBound() {
        writeLog(1, 20, 20);
        try (TxnLog log = TxnLog.open(logDir())) {
            var r = Recovery.recoverUpTo(snaps(), log, RecoveryTest::read, ConcurrentSkipListSet::new,
                    RecoveryTest::apply, 7);
            assertEquals(range(1, 7), List.copyOf(r.state()));
            assertEquals(20, r.lastZxid());
        }
    }
}
