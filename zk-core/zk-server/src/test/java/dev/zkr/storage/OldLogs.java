package dev.zkr.storage;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.zip.CRC32C;

/** Writes log segments in format v1 (before commit marks), as an older zkr left them. */
final class OldLogs {

    private OldLogs() {
    }

    /**
     * Writes a v1 segment continuing after {@code prevZxid} with records {@code first..last} (payload
     * {@link LogTesting#payload}), in batches of {@code batch}; returns its path.
     */
    static Path writeV1Segment(Path dir, long prevZxid, long first, long last, int batch) throws IOException {
        Files.createDirectories(dir);
        Path file = dir.resolve(Segment.fileName(prevZxid));
        ByteBuffer buf = ByteBuffer.allocate(1 << 20);
        LogFormat.putV1SegmentHeader(buf, prevZxid);
        CRC32C crc = new CRC32C();
        for (long z = first; z <= last; z++) {
            LogFormat.putV1Record(buf, crc, z, LogTesting.payload(z), (z - first + 1) % batch == 0 || z == last);
        }
        buf.flip();
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            while (buf.hasRemaining()) {
                ch.write(buf);
            }
        }
        return file;
    }
}
