package dev.zkr.storage;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Consumer;

/**
 * The file steps of {@link TxnLog#restartAfter}, made all-or-nothing by an intent file: {@code reset.<hex z>} is
 * created and made durable first; then the new segment continuing after z is created (durably), every older segment
 * is deleted (oldest first) and the intent is removed last. {@link TxnLog#open} redoes an intent it finds (deleting
 * the segments before z and creating the one after z if it is missing), so a crash at any point leaves the old log
 * (intent not yet durable) or a log that starts after z, never a log with a gap in it.
 */
final class LogReset {

    static final String INTENT_PREFIX = "reset.";


    private LogReset() {
    }

    static void begin(Path dir, long zxid, Consumer<String> steps) throws IOException {
        steps.accept("reset start");
        Files.deleteIfExists(intent(dir, zxid));
        StorageFiles.createEmpty(intent(dir, zxid));
        StorageFiles.fsyncDirectory(dir);
        steps.accept("reset intent");
    }

    /** Deletes the segments before the one continuing after {@code zxid} (all with a lower prevZxid). */
    static void apply(Path dir, List<Segment> segments, long zxid, Consumer<String> steps) throws IOException {
        while (!segments.isEmpty() && segments.get(0).prevZxid() < zxid) {
            Segment doomed = segments.remove(0);
            Files.deleteIfExists(doomed.path());
            StorageFiles.fsyncDirectory(dir);
            steps.accept("reset deleted " + doomed.name());
        }
    }

    static void finish(Path dir, long zxid, Consumer<String> steps) throws IOException {
        Files.deleteIfExists(intent(dir, zxid));
        StorageFiles.fsyncDirectory(dir);
        steps.accept("reset done");
    }

    /**
     * Redoes the deletions of an interrupted reset found in {@code dir} (the highest, should there be several) on
     * {@code segments} (sorted); returns its zxid, or -1 when there was none. The caller creates the segment after
     * it if none is left and then calls {@link #clearIntents}.
     */
    static long redo(Path dir, List<Segment> segments, Consumer<String> steps) throws IOException {
        long highest = -1;
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, INTENT_PREFIX + "*")) {
            for (Path p : files) {
                highest = Math.max(highest, StorageFiles.parseHexSuffix(p.getFileName().toString(), INTENT_PREFIX));
            }
        }
        if (highest < 0) {
            return -1;
        }
        apply(dir, segments, highest, steps);
        return highest;
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
