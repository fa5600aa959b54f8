package dev.zkr.storage;

import static dev.zkr.storage.LogTesting.payload;
import static dev.zkr.storage.LogTesting.readAll;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TxnLogTest {

    @TempDir
    Path dir;

    private static final LogConfig SMALL = LogConfig.defaults().withSegmentBytes(8192).withPreallocateBytes(4096);

    private static void assertRecords(List<LogRecord> records, long fromExclusive, long toInclusive) {
        assertEquals(toInclusive - fromExclusive, records.size(), "record count");
        long z = fromExclusive;
        for (LogRecord r : records) {
            z++;
            assertEquals(z, r.zxid());
            assertArrayEquals(payload(z), r.payload(), "payload of " + z);
        }
    }

    @Test
    void roundTripAcrossSegmentsAndReopen() {
        try (TxnLog log = TxnLog.open(dir, SMALL)) {
            for (long z = 1; z <= 400; z++) {
                log.append(z, payload(z));
                if (z % 37 == 0) {
                    log.sync().join();
                }
            }
            log.sync().join();
            assertEquals(400, log.durableZxid());
            assertTrue(log.segmentFiles().size() > 5, "rolled over: " + log.segmentFiles());
            assertRecords(readAll(log, 0), 0, 400);
            assertRecords(readAll(log, 123), 123, 400);
            assertRecords(readAll(log, 400), 400, 400);
        }
        var reopened = LogTesting.captureStderr(() -> {
            try (TxnLog log = TxnLog.open(dir, SMALL)) {
                assertEquals(400, log.lastZxid());
                assertRecords(readAll(log, 0), 0, 400);
                for (long z = 401; z <= 450; z++) {
                    log.appendAsync(z, payload(z)).join();
                }
            }
            return null;
        });
        assertEquals(0, reopened.lines("WARN"), "a clean reopen warns nothing");
        try (TxnLog log = TxnLog.open(dir, SMALL)) {
            assertRecords(readAll(log, 0), 0, 450);
            assertRecords(readAll(log, 440), 440, 450);
        }
    }

    @Test
    void emptyLogReopens() {
        TxnLog.open(dir).close();
        try (TxnLog log = TxnLog.open(dir)) {
            assertEquals(0, log.lastZxid());
            assertEquals(0, log.startsAfterZxid());
            assertTrue(readAll(log, 0).isEmpty());
        }
    }

    @Test
    void rejectsZxidsThatDoNotIncrease() {
        try (TxnLog log = TxnLog.open(dir)) {
            log.append(5, new byte[1]);
            assertThrows(IllegalArgumentException.class, () -> log.append(5, new byte[1]));
            assertThrows(IllegalArgumentException.class, () -> log.appendAsync(3, new byte[1]));
            assertThrows(IllegalArgumentException.class, () -> log.append(0, new byte[1]));
            log.append(9, new byte[1]);
            log.sync().join();
            assertEquals(List.of(5L, 9L), readAll(log, 0).stream().map(LogRecord::zxid).toList());
        }
    }

    @Test
    void appendAfterCloseFailsWithStorageException() {
        TxnLog log = TxnLog.open(dir);
        log.close();
        log.close();
        assertThrows(StorageException.class, () -> log.append(1, new byte[0]));
    }

    @Test
    void closeMakesQueuedAppendsDurable() {
        List<CompletableFuture<Void>> futures = new ArrayList<>();
        try (TxnLog log = TxnLog.open(dir)) {
            for (long z = 1; z <= 1000; z++) {
                futures.add(log.appendAsync(z, payload(z)));
            }
        }
        futures.forEach(f -> assertTrue(f.isDone() && !f.isCompletedExceptionally()));
        try (TxnLog log = TxnLog.open(dir)) {
            assertRecords(readAll(log, 0), 0, 1000);
        }
    }

    @Test
    void groupCommitAcknowledgesInZxidOrderOnlyAfterFsync() throws Exception {
        int threads = 6;
        int perThread = 1500;
        List<Long> completed = Collections.synchronizedList(new ArrayList<>());
        java.util.Map<Long, CompletableFuture<Void>> futures = new java.util.concurrent.ConcurrentHashMap<>();
        AtomicInteger early = new AtomicInteger();
        AtomicInteger outOfOrder = new AtomicInteger();
        ReentrantLock zxidLock = new ReentrantLock();
        long[] nextZxid = {1};
        try (TxnLog log = TxnLog.open(dir, LogConfig.defaults().withSegmentBytes(256 << 10))) {
            CountDownLatch start = new CountDownLatch(1);
            CountDownLatch done = new CountDownLatch(threads * perThread);
            List<Thread> workers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                Thread w = new Thread(() -> {
                    try {
                        start.await();
                    } catch (InterruptedException e) {
                        return;
                    }
                    for (int i = 0; i < perThread; i++) {
                        CompletableFuture<Void> f;
                        long z;
                        zxidLock.lock();
                        try {
                            z = nextZxid[0]++;
                            f = log.appendAsync(z, payload(z));
                            futures.put(z, f); // under the lock: every earlier zxid's future is in the map already
                        } finally {
                            zxidLock.unlock();
                        }
                        // the callback may run on this thread if f is already complete, so completion order is
                        // checked as "every earlier future was already complete", not by the order callbacks ran
                        f.whenComplete((v, e) -> {
                            if (e != null || log.durableZxid() < z) {
                                early.incrementAndGet();
                            }
                            CompletableFuture<Void> previous = futures.get(z - 1);
                            if (z > 1 && (previous == null || !previous.isDone())) {
                                outOfOrder.incrementAndGet();
                            }
                            completed.add(z);
                            done.countDown();
                        });
                    }
                });
                workers.add(w);
                w.start();
            }
            start.countDown();
            assertTrue(done.await(20, TimeUnit.SECONDS), "all appends acknowledged");
            for (Thread w : workers) {
                w.join();
            }
            int total = threads * perThread;
            assertEquals(0, early.get(), "no acknowledgement before the record's fsync");
            assertEquals(0, outOfOrder.get(), "a future completed before the one of the previous zxid");
            assertEquals(total, completed.size());
            assertEquals(total, new java.util.HashSet<>(completed).size());
            assertTrue(log.fsyncCount() < total / 4, "batched: " + log.fsyncCount() + " fsyncs for " + total);
            assertEquals(total, log.recordsWritten());
            assertRecords(readAll(log, 0), 0, total);
        }
    }

    @Test
    void purgeDeletesOnlySegmentsWhollyCovered() {
        try (TxnLog log = TxnLog.open(dir, SMALL)) {
            for (long z = 1; z <= 300; z++) {
                log.append(z, payload(z));
                if (z % 10 == 0) {
                    log.sync().join();
                }
            }
            log.sync().join();
            int before = log.segmentFiles().size();
            int purged = log.purgeUpTo(150);
            assertTrue(purged > 0 && log.segmentFiles().size() == before - purged);
            assertTrue(log.startsAfterZxid() <= 150, "still has everything after 150");
            assertRecords(readAll(log, 150), 150, 300);
            assertThrows(StorageException.class, () -> log.read(0));
            log.purgeUpTo(Long.MAX_VALUE);
            assertEquals(1, log.segmentFiles().size(), "the active segment is never purged");
        }
        try (TxnLog log = TxnLog.open(dir, SMALL)) {
            assertEquals(300, log.lastZxid());
            assertTrue(log.startsAfterZxid() > 0);
        }
    }

    @Test
    void diskFailurePoisonsTheLogAndFailsEveryPendingFuture() throws Exception {
        Path logDir = dir.resolve("log");
        TxnLog log = TxnLog.open(logDir, SMALL);
        try {
            log.appendAsync(1, payload(1)).join();
            // the next rollover cannot create its segment: a real I/O failure on the writer thread
            LogTesting.deleteRecursively(logDir);
            List<CompletableFuture<Void>> futures = new ArrayList<>();
            for (long z = 2; z <= 200; z++) {
                try {
                    futures.add(log.appendAsync(z, payload(z)));
                } catch (StorageException e) {
                    break; // the failure was already seen: appends are refused
                }
            }
            CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new)).handle((v, e) -> null)
                    .get(10, TimeUnit.SECONDS);
            CompletableFuture<Void> lastOne = futures.get(futures.size() - 1);
            var e = assertThrows(java.util.concurrent.ExecutionException.class, lastOne::get);
            assertTrue(e.getCause() instanceof StorageException, e.getCause().toString());
            assertThrows(StorageException.class, () -> log.append(1000, payload(1000)));
            assertThrows(StorageException.class, () -> log.sync());
        } finally {
            log.close();
        }
    }

    @Test
    void durabilityListenerHearsEachFsyncInOrderAfterTheRecordsAreDurable() throws Exception {
        List<Long> heard = Collections.synchronizedList(new ArrayList<>());
        List<Boolean> durableWhenHeard = Collections.synchronizedList(new ArrayList<>());
        CountDownLatch all = new CountDownLatch(1);
        try (TxnLog log = TxnLog.open(dir, SMALL)) {
            log.listen(new TxnLog.DurabilityListener() {
                @Override
                public void durable(long zxid) {
                    heard.add(zxid);
                    durableWhenHeard.add(log.durableZxid() >= zxid);
                    if (zxid == 300) {
                        all.countDown();
                    }
                }

                @Override
                public void failed(StorageException e) {
                }
            });
            long z = 0;
            for (int round = 0; round < 30; round++) {
                List<LogRecord> records = new ArrayList<>();
                for (int i = 0; i < 10; i++) {
                    z++;
                    records.add(new LogRecord(z, payload(z)));
                }
                log.appendAll(records);
            }
            assertTrue(all.await(30, TimeUnit.SECONDS), "heard up to 300: " + heard);
            for (int i = 1; i < heard.size(); i++) {
                assertTrue(heard.get(i) > heard.get(i - 1), "increasing: " + heard);
            }
            assertTrue(durableWhenHeard.stream().allMatch(b -> b), "told only after the fsync");
            assertTrue(log.fsyncCount() <= 30, "at most one fsync per hand-off: " + log.fsyncCount());
            assertThrows(IllegalArgumentException.class,
                    () -> log.appendAll(List.of(new LogRecord(301, payload(301)), new LogRecord(301, payload(301)))));
            log.append(301, payload(301)); // the rejected batch queued nothing
            log.sync().join();
            assertRecords(readAll(log, 0), 0, 301);
        }
    }
}
