package dev.zkr.chaos.nemesis;

import dev.zkr.storage.SegmentLayout;

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
 * Damages the last record of a stopped server's newest transaction log file: zkr's {@code <dataDir>/log/log.*}
 * segments (record bounds from {@link SegmentLayout}) and ZooKeeper's {@code <dataDir>/version-2/log.*} files
 * (header of 16 bytes, then records of checksum (8), length (4), body, end mark (1); a zero length ends them).
 */
final class LogDamage {

    private LogDamage() {
    }

    /** [start, end) of the last record, and the file. */
    record Target(Path file, long start, long end) {
    }

    static Optional<Target> lastRecord(String system, Path dataDir) throws IOException {
        if (system.equals("zkr")) {
            Optional<Path> seg = SegmentLayout.lastSegment(dataDir.resolve("log"));
            if (seg.isEmpty()) {
                return Optional.empty();
            }
            SegmentLayout.Range r = SegmentLayout.lastRecord(seg.get());
            return Optional.of(new Target(seg.get(), r.start(), r.end()));
        }
        Path dir = dataDir.resolve("version-2");
        if (!Files.isDirectory(dir)) {
            return Optional.empty();
        }
        Optional<Path> newest;
        try (Stream<Path> files = Files.list(dir)) {
            newest = files.filter(p -> p.getFileName().toString().startsWith("log."))
                    .max(Comparator.comparingLong(p -> Long.parseLong(p.getFileName().toString().substring(4), 16)));
        }
        if (newest.isEmpty()) {
            return Optional.empty();
        }
        return zooKeeperLastRecord(newest.get());
    }

    private static Optional<Target> zooKeeperLastRecord(Path file) throws IOException {
        ByteBuffer all = ByteBuffer.wrap(Files.readAllBytes(file));
        long at = 16;
        Target last = null;
        while (at + 12 <= all.limit()) {
            int len = all.getInt((int) at + 8);
            if (len <= 0 || at + 12 + len + 1 > all.limit()) {
                break;
            }
            long end = at + 12 + len + 1;
            last = new Target(file, at, end);
            at = end;
        }
        return Optional.ofNullable(last);
    }

    /** Zeroes the second half of the record, as a write torn by a power loss leaves it. */
    static void tear(Target t) throws IOException {
        long from = t.start() + (t.end() - t.start()) / 2;
        try (FileChannel ch = FileChannel.open(t.file(), StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.allocate((int) (t.end() - from)), from);
            ch.force(true);
        }
    }

    /** Flips every bit of one byte in the record's body. */
    static void corrupt(Target t, long offsetInRecord) throws IOException {
        long at = t.start() + Math.min(offsetInRecord, t.end() - t.start() - 1);
        try (FileChannel ch = FileChannel.open(t.file(), StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ByteBuffer b = ByteBuffer.allocate(1);
            ch.read(b, at);
            b.flip();
            byte flipped = (byte) ~b.get();
            ch.write(ByteBuffer.wrap(new byte[] {flipped}), at);
            ch.force(true);
        }
    }
}
