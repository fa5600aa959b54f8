package dev.zkr.storage;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Comparator;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * Where things lie in a log directory's files, for tools and tests that inspect or damage them on purpose (a torn
 * write, a cut file): the newest segment, and the byte range of a segment's last record. Reads the files only;
 * knows the segment format through {@link LogFormat}.
 */
public final class SegmentLayout {

    /** The bytes {@code [start, end)} of one record in its segment file. */
    public record Range(long start, long end) {
    }

    private SegmentLayout() {
    }

    /** The newest segment file ({@code log.<first zxid hex>}) of a log directory, if it has one. */
    public static Optional<Path> lastSegment(Path logDir) throws IOException {
        try (Stream<Path> files = Files.list(logDir)) {
            return files.filter(p -> p.getFileName().toString().startsWith(LogFormat.SEGMENT_PREFIX))
                    .max(Comparator.comparing(p -> p.getFileName().toString()));
        }
    }

    /**
     * The last record of a version-2 segment (records follow the header until a zero length field: the
     * preallocated rest), by walking the length fields only — no checksum is checked.
     *
     * @throws IOException           if the file cannot be read
     * @throws IllegalStateException if it is not a version-2 segment or holds no record
     */
    public static Range lastRecord(Path segment) throws IOException {
        ByteBuffer all;
        try (FileChannel ch = FileChannel.open(segment, StandardOpenOption.READ)) {
            all = ByteBuffer.allocate((int) ch.size());
            while (all.hasRemaining() && ch.read(all) >= 0) {
                // the whole segment
            }
        }
        all.flip();
        if (all.limit() < LogFormat.V2_HEADER_BYTES || all.getInt(4) != LogFormat.VERSION) {
            throw new IllegalStateException(segment + " is not a version-" + LogFormat.VERSION + " log segment");
        }
        long at = LogFormat.V2_HEADER_BYTES;
        Range last = null;
        while (at + LogFormat.RECORD_HEADER_BYTES <= all.limit()) {
            int lenFlags = all.getInt((int) at);
            if (lenFlags == 0) {
                break;
            }
            long end = at + LogFormat.recordBytes(lenFlags & LogFormat.V2_LENGTH_MASK,
                    (lenFlags & LogFormat.HAS_MARK) != 0);
            last = new Range(at, end);
            at = end;
        }
        if (last == null) {
            throw new IllegalStateException("no record in " + segment);
        }
        return last;
    }
}
