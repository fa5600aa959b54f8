package dev.zkr.server.round;

import dev.zkr.consensus.Entry;
import dev.zkr.storage.LogConfig;
import dev.zkr.storage.LogReader;
import dev.zkr.storage.LogRecord;
import dev.zkr.storage.SegmentLayout;
import dev.zkr.storage.TxnLog;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Stream;

/**
 * A crash that tore the last record the process wrote, recovered by the real log: the simulator writes a sim log's
 * image (its durable records, the unsynced ones that reached the disk whole, and one more) into a real
 * {@link TxnLog} in a scratch directory, tears that last record at a seeded byte (the file cut there, or the rest
 * of the record zeroes), opens the log again — its tail recovery runs — and reads back what it kept. The scratch
 * directory is deleted; only the records read back matter, so the run stays deterministic.
 */
final class SimTornTail {

    /** Scratch space: memory (tmpfs) where there is some, as fsyncs there cost nothing; else the temp directory. */
    private static final Path SCRATCH = Files.isDirectory(Path.of("/dev/shm")) && Files.isWritable(Path.of("/dev/shm"))
            ? Path.of("/dev/shm") : Path.of(System.getProperty("java.io.tmpdir"));

    private SimTornTail() {
    }

    /** The records the real log recovers from {@code image} with its last record torn as {@code random} decides. */
    static List<Entry> recover(List<Entry> image, SplittableRandom random) {
        Path dir = null;
        try {
            dir = Files.createTempDirectory(SCRATCH, "zkr-sim-torn-");
            LogConfig config = new LogConfig(64L << 20, 0);
            try (TxnLog log = TxnLog.open(dir, config)) {
                List<LogRecord> batch = new ArrayList<>();
                for (Entry e : image) {
                    batch.add(new LogRecord(e.zxid(), e.payload()));
                }
                log.appendAll(batch);
                log.sync().join();
            }
            Path logDir = dir;
            tearLastRecord(SegmentLayout.lastSegment(logDir)
                    .orElseThrow(() -> new AssertionError("no log segment in " + logDir)), random);
            List<Entry> kept = new ArrayList<>();
            try (TxnLog log = TxnLog.open(dir, config); LogReader records = log.read(0)) {
                while (records.hasNext()) {
                    LogRecord r = records.next();
                    kept.add(new Entry(r.zxid(), r.payload()));
                }
            }
            return kept;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            delete(dir);
        }
    }

    /**
     * Tears the segment's last record (the format of docs/storage.md, Log format: a 32-byte v2 header, then records
     * {@code lenFlags | crc | zxid | payload [| mark]}): keeps 1 to size-1 of its bytes, then cuts the file there
     * or zeroes the rest of the record (from a byte that was not zero: a record ending in zeroes is not torn by
     * zeroing them — the simulator's first torn-record run "found" that).
     */
    private static void tearLastRecord(Path segment, SplittableRandom random) throws IOException {
        SegmentLayout.Range last = SegmentLayout.lastRecord(segment);
        int lastStart = (int) last.start();
        int lastEnd = (int) last.end();
        try (FileChannel ch = FileChannel.open(segment, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ByteBuffer all = ByteBuffer.allocate(lastEnd);
            while (all.hasRemaining() && ch.read(all) >= 0) {
                // up to the end of the last record
            }
            int from = lastStart + 1 + random.nextInt(lastEnd - lastStart - 1);
            int lastNonZero = lastEnd - 1;
            while (all.get(lastNonZero) == 0) {
                lastNonZero--;
            }
            if (random.nextBoolean() || lastNonZero <= lastStart) {
                ch.truncate(from);
            } else {
                // zeroes from a byte at or before the last non-zero one: else the "torn" record is the whole one
                from = lastStart + 1 + random.nextInt(lastNonZero - lastStart);
                ch.write(ByteBuffer.allocate(lastEnd - from), from);
            }
            ch.force(true);
        }
    }

    private static void delete(Path dir) {
        if (dir == null) {
            return;
        }
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            // a scratch directory left behind changes nothing in the run
        }
    }
}
