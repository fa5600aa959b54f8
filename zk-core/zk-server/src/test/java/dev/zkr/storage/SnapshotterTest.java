package dev.zkr.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SnapshotterTest {

    @TempDir
    Path dir;

    @Test
    void atMostOneSnapshotAtATimeAndAppendsContinue() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch inBody = new CountDownLatch(1);
        AtomicInteger captures = new AtomicInteger();
        SnapshotStore store = SnapshotStore.open(dir.resolve("snap"));
        try (TxnLog log = TxnLog.open(dir.resolve("log"));
             Snapshotter s = new Snapshotter(store, log, new Snapshotter.Policy(10, 0, 3), zxid -> {
                 captures.incrementAndGet();
                 return out -> {
                     inBody.countDown();
                     try {
                         release.await();
                     } catch (InterruptedException e) {
                         throw new IOException(e);
                     }
                     out.writeLong(zxid);
                 };
             })) {
            assertFalse(s.afterApply(5, 5, 0), "below threshold");
            assertTrue(s.afterApply(10, 5, 0), "threshold reached");
            assertTrue(inBody.await(5, TimeUnit.SECONDS));
            CompletableFuture<Long> running = s.snapshotNow(10);
            // while the snapshot body runs, appends are acknowledged and no second snapshot starts
            for (long z = 1; z <= 50; z++) {
                log.appendAsync(z, new byte[10]).get(5, TimeUnit.SECONDS);
                assertFalse(s.afterApply(z, 10, 0));
            }
            assertSame(running, s.snapshotNow(99));
            assertTrue(s.running());
            assertEquals(1, captures.get());
            release.countDown();
            assertEquals(10L, running.get(5, TimeUnit.SECONDS));
            assertEquals(List.of(10L), store.list());
            assertEquals(50L, s.snapshotNow(50).get(5, TimeUnit.SECONDS));
            assertEquals(2, captures.get());
            assertNull(s.lastFailure());
        }
    }

    @Test
    void failureIsReportedAndTheNextSnapshotWorks() throws Exception {
        SnapshotStore store = SnapshotStore.open(dir.resolve("snap"));
        AtomicInteger calls = new AtomicInteger();
        try (TxnLog log = TxnLog.open(dir.resolve("log"));
             Snapshotter s = new Snapshotter(store, log, new Snapshotter.Policy(0, 1000, 3), zxid -> out -> {
                 if (calls.incrementAndGet() == 1) {
                     throw new IOException("disk says no");
                 }
                 out.writeLong(zxid);
             })) {
            CompletableFuture<Long> first = s.snapshotNow(7);
            ExecutionException e = assertThrows(ExecutionException.class, () -> first.get(5, TimeUnit.SECONDS));
            assertTrue(e.getCause() instanceof StorageException, e.getCause().toString());
            assertTrue(s.lastFailure() instanceof StorageException);
            assertTrue(store.list().isEmpty(), "nothing half-written left");
            assertFalse(s.afterApply(8, 1, 999), "below the size threshold");
            assertTrue(s.afterApply(8, 1, 1), "size threshold reached");
            // returns the snapshot just started if it still runs, else starts one at the same zxid: 8 either way
            assertEquals(8L, s.snapshotNow(8).get(5, TimeUnit.SECONDS));
            assertEquals(List.of(8L), store.list());
        }
    }

    @Test
    void closedSnapshotterRefuses() {
        try (TxnLog log = TxnLog.open(dir.resolve("log"))) {
            Snapshotter s = new Snapshotter(SnapshotStore.open(dir.resolve("snap")), log,
                    Snapshotter.Policy.defaults(), zxid -> out -> { });
            s.close();
            assertFalse(s.afterApply(1, 1_000_000, 0));
            assertTrue(s.snapshotNow(1).isCompletedExceptionally());
        }
    }
}
