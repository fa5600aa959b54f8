package dev.zkr.storage;

import static dev.zkr.storage.LogTesting.payload;
import static dev.zkr.storage.LogTesting.readAll;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;

/** Damage at the end of the last segment is truncated with one warning; everything before it survives. */
class TornTailTest {

    private static final String WARNING = "Truncated torn tail";

    /**
     * Writes records 1..n in about {@code batches} fsynced batches (few fsyncs keep the property fast); returns
     * the file offset where each record ends.
     */
    private static long[] writeLog(Path dir, int n, int batches) {
        int batch = Math.max(1, (n + batches - 1) / batches);
        try (TxnLog log = TxnLog.open(dir, LogConfig.defaults().withPreallocateBytes(0))) {
            for (int z = 1; z <= n; z++) {
                log.append(z, payload(z));
                if (z % batch == 0) {
                    log.sync().join();
                }
            }
        }
        try {
            return LogTesting.recordEnds(LogTesting.lastSegment(dir));
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** Reopens, expects exactly one warning and records 1..survivors; then checks appends still work. */
    private static void reopenAndCheck(Path dir, int survivors, String reasonPart) {
        var opened = LogTesting.captureStderr(() -> {
            try (TxnLog log = TxnLog.open(dir)) {
                return readAll(log, 0);
            }
        });
        assertEquals(1, opened.lines(WARNING), "exactly one warning:\n" + opened.stderr());
        String warning = opened.stderr().lines().filter(l -> l.contains(WARNING)).findFirst().orElseThrow();
        assertTrue(warning.contains("log.0000000000000001") && warning.contains("offset"), warning);
        if (reasonPart != null) {
            assertTrue(warning.contains(reasonPart), warning);
        }
        assertIntact(opened.value(), survivors);
        var again = LogTesting.captureStderr(() -> {
            try (TxnLog log = TxnLog.open(dir)) {
                log.appendAsync(survivors + 1, payload(survivors + 1)).join();
            }
            try (TxnLog log = TxnLog.open(dir)) {
                return readAll(log, 0);
            }
        });
        assertEquals(0, again.lines(WARNING), again.stderr());
        assertIntact(again.value(), survivors + 1);
    }

    private static void assertIntact(List<LogRecord> records, int n) {
        assertEquals(n, records.size());
        for (int i = 0; i < n; i++) {
            assertEquals(i + 1, records.get(i).zxid());
            assertArrayEquals(payload(i + 1), records.get(i).payload());
        }
    }

    @Property
    void cutAtRandomOffset(@ForAll @IntRange(min = 1, max = 20) int n, @ForAll @IntRange(min = 1, max = 4) int batches,
                           @ForAll @LongRange(min = 0, max = Long.MAX_VALUE) long seed) throws IOException {
        Path dir = Files.createTempDirectory("zkr-torn");
        try {
            long[] ends = writeLog(dir, n, batches);
            long cut = ends[0] + 1 + Math.floorMod(seed, ends[n] - ends[0] - 1); // strictly inside the records
            int survivors = 0;
            while (survivors < n && ends[survivors + 1] <= cut) {
                survivors++;
            }
            try (FileChannel ch = FileChannel.open(LogTesting.lastSegment(dir), StandardOpenOption.WRITE)) {
                ch.truncate(cut);
            }
            if (cut == ends[survivors]) {
                return; // cut exactly at a record boundary: nothing torn, nothing to warn about
            }
            reopenAndCheck(dir, survivors, null);
        } finally {
            LogTesting.deleteRecursively(dir);
        }
    }

    @Property
    void garbageAppended(@ForAll @IntRange(min = 1, max = 20) int n, @ForAll @IntRange(min = 1, max = 300) int garbage,
                         @ForAll long seed) throws IOException {
        Path dir = Files.createTempDirectory("zkr-torn");
        try {
            writeLog(dir, n, 2);
            byte[] junk = new byte[garbage];
            new Random(seed).nextBytes(junk);
            junk[0] |= 1; // not an all-zero header
            Files.write(LogTesting.lastSegment(dir), junk, StandardOpenOption.APPEND);
            reopenAndCheck(dir, n, null);
        } finally {
            LogTesting.deleteRecursively(dir);
        }
    }

    @Property
    void byteFlippedInLastRecord(@ForAll @IntRange(min = 1, max = 20) int n, @ForAll @IntRange(min = 1, max = 4) int batches,
                                 @ForAll long seed) throws IOException {
        Path dir = Files.createTempDirectory("zkr-torn");
        try {
            long[] ends = writeLog(dir, n, batches);
            Random random = new Random(seed);
            long at = ends[n - 1] + random.nextInt((int) (ends[n] - ends[n - 1]));
            flip(LogTesting.lastSegment(dir), at, 1 + random.nextInt(255));
            reopenAndCheck(dir, n - 1, null);
        } finally {
            LogTesting.deleteRecursively(dir);
        }
    }

    @Property
    void zeroFilledPreallocatedSpace(@ForAll @IntRange(min = 0, max = 20) int n,
                                     @ForAll @IntRange(min = 1, max = 100_000) int zeros) throws IOException {
        Path dir = Files.createTempDirectory("zkr-torn");
        try {
            writeLog(dir, n, 2);
            Files.write(LogTesting.lastSegment(dir), new byte[zeros], StandardOpenOption.APPEND);
            reopenAndCheck(dir, n, "zero-filled preallocated space");
        } finally {
            LogTesting.deleteRecursively(dir);
        }
    }

    static void flip(Path file, long at, int mask) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ByteBuffer b = ByteBuffer.allocate(1);
            ch.read(b, at);
            b.put(0, (byte) (b.get(0) ^ mask));
            b.rewind();
            ch.write(b, at);
        }
    }
}
