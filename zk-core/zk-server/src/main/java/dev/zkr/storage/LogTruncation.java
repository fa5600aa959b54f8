package dev.zkr.storage;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.function.Consumer;

/**
 * The file steps of {@link TxnLog#truncateAfter}, made all-or-nothing by an intent file: {@code truncate.<hex z>}
 * is created and made durable first; then later segments are deleted (newest first), the segment holding z is cut
 * after z's record and fsynced; the intent is removed last. {@link TxnLog#open} redoes an intent it finds (every
 * step is idempotent), so a crash at any point leaves the old log (intent not yet durable) or the truncated one.
 */
final class LogTruncation {

    static final String INTENT_PREFIX = "truncate.";


    private LogTruncation() {
    }

    static void begin(Path dir, long zxid, Consumer<String> steps) throws IOException {
        steps.accept("start");
        Files.deleteIfExists(intent(dir, zxid));
        StorageFiles.createEmpty(intent(dir, zxid));
        StorageFiles.fsyncDirectory(dir);
        steps.accept("intent");
    }

    /** Deletes the segments holding only records after {@code zxid} and cuts the one holding it. */
    static void apply(Path dir, List<Segment> segments, long zxid, Consumer<String> steps) throws IOException {
        while (!segments.isEmpty() && segments.get(segments.size() - 1).prevZxid() >= zxid) {
            Segment doomed = segments.remove(segments.size() - 1);
            Files.deleteIfExists(doomed.path());
            StorageFiles.fsyncDirectory(dir);
            steps.accept("deleted " + doomed.name());
        }
        if (!segments.isEmpty()) {
            cut(segments.get(segments.size() - 1), zxid);
            steps.accept("cut");
        }
    }

    private static void cut(Segment segment, long zxid) throws IOException {
        try (FileChannel ch = FileChannel.open(segment.path(), StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            LogFormat.Header header = TxnLog.readHeader(ch);
            if (header == null || header.prevZxid() != segment.prevZxid()) {
                throw new CorruptLogException("log segment " + segment.path() + " has a damaged header");
            }
            RecordScanner scanner = new RecordScanner(ch, header, header.bytes(), ch.size(), header.prevZxid());
            long end = header.bytes();
            while (scanner.next() == RecordScanner.Status.RECORD && scanner.zxid() <= zxid) {
                end = scanner.position();
            }
            if (ch.size() > end) {
                ch.truncate(end);
            }
            ch.force(true);
        }
    }

    static void finish(Path dir, long zxid, Consumer<String> steps) throws IOException {
        steps.accept("new segment");
        Files.deleteIfExists(intent(dir, zxid));
        StorageFiles.fsyncDirectory(dir);
    }

    /**
     * Redoes the file steps of an interrupted truncation found in {@code dir} (the lowest, should there be several)
     * on {@code segments} (sorted); returns its zxid, or -1 when there was none. The caller sets up the active
     * segment and then calls {@link #clearIntents}.
     */
    static long redo(Path dir, List<Segment> segments, Consumer<String> steps) throws IOException {
        long lowest = -1;
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, INTENT_PREFIX + "*")) {
            for (Path p : files) {
                long z = StorageFiles.parseHexSuffix(p.getFileName().toString(), INTENT_PREFIX);
                if (z >= 0 && (lowest < 0 || z < lowest)) {
                    lowest = z;
                }
            }
        }
        if (lowest < 0) {
            return -1;
        }
        apply(dir, segments, lowest, steps);
        return lowest;
    }

    static void clearIntents(Path dir) throws IOException {
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, INTENT_PREFIX + "*")) {
            for (Path p : files) {
                Files.deleteIfExists(p);
            }
        }
        StorageFiles.fsyncDirectory(dir);
    }

    private static Path intent(Path dir, long zxid) {
        return dir.resolve(INTENT_PREFIX + StorageFiles.hex(zxid));
    }
}
