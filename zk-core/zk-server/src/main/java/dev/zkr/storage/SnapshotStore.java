package dev.zkr.storage;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.FilterInputStream;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.zip.CRC32C;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Snapshot files {@code snapshot.<zxid hex>} in one directory.
 *
 * <pre>
 * file    = magic:int32 "ZKRS" | version:int32 | zxid:int64 | body | bodyLength:int64 | crc:int32 | "ZKRE":int32
 * crc     = CRC32C over everything before it (header, body, bodyLength)
 * </pre>
 * A snapshot is written to a temp file, fsynced, renamed atomically into place and the directory fsynced, so a
 * crash leaves either the complete file or none. Loading tries the newest first and skips (with one warning each)
 * files that are truncated, fail the checksum or cannot be parsed by the reader.
 */
public final class SnapshotStore {

    private static final Logger LOG = LoggerFactory.getLogger(SnapshotStore.class);
    static final String PREFIX = "snapshot.";
    private static final int MAGIC = 0x5A4B5253; // "ZKRS"
    private static final int END_MAGIC = 0x5A4B5245; // "ZKRE"
    private static final int VERSION = 1;
    private static final int HEADER_BYTES = 16;
    private static final int TRAILER_BYTES = 16;

    private final Path dir;

    private final Consumer<String> steps;

    private SnapshotStore(Path dir, Consumer<String> steps) {
        this.dir = dir;
        this.steps = steps;
    }

    /**
     * Opens (creating if needed) the snapshot directory and deletes temp files of interrupted writes and the
     * partial files of interrupted transfers ({@link #partFile}).
     */
    public static SnapshotStore open(Path dir) {
        return open(dir, step -> { });
    }

    /**
     * {@link #open(Path)} with a seam told the name of each step of a transfer's install into this store as it is
     * reached (the crash test kills the process there).
     */
    static SnapshotStore open(Path dir, Consumer<String> steps) {
        Objects.requireNonNull(dir, "dir");
        try {
            StorageFiles.createDirectories(dir);
            try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, PREFIX + "*.{tmp,part}")) {
                for (Path p : files) {
                    Files.deleteIfExists(p);
                }
            }
        } catch (IOException e) {
            throw new StorageException("cannot open snapshot directory " + dir + ": " + e, e);
        }
        return new SnapshotStore(dir, steps);
    }

    /** The install steps' seam ({@link SnapshotReceiver}). */
    Consumer<String> steps() {
        return steps;
    }

    /** The snapshot directory. */
    public Path directory() {
        return dir;
    }

    /** The file a snapshot of {@code zxid} is stored in. */
    public Path fileOf(long zxid) {
        return dir.resolve(PREFIX + StorageFiles.hex(zxid));
    }

    /**
     * Writes snapshot {@code zxid} durably: temp file, fsync, atomic rename, directory fsync. Replaces an existing
     * snapshot of the same zxid. Returns the file.
     *
     * @throws StorageException if writing fails or the body throws; no partial file is left behind
     */
    public Path write(long zxid, SnapshotWriter body) {
        if (zxid < 0) {
            throw new IllegalArgumentException("negative zxid " + zxid);
        }
        Objects.requireNonNull(body, "body");
        return publish(zxid, "write", (ch, tmp) -> {
            CRC32C crc = new CRC32C();
            BufferedOutputStream file = new BufferedOutputStream(Channels.newOutputStream(ch), 1 << 16);
            CountingCrcOutput counting = new CountingCrcOutput(file, crc);
            DataOutputStream out = new DataOutputStream(counting);
            out.writeInt(MAGIC);
            out.writeInt(VERSION);
            out.writeLong(zxid);
            long bodyStart = counting.count;
            // the body's many small writes (a long, a byte) land in a buffer first: the count and the CRC then take
            // 64 KiB at a time instead of a call each (the same bytes in the same order)
            DataOutputStream bodyOut = new DataOutputStream(
                    new BufferedOutputStream(new NonClosing(counting), 1 << 16));
            body.write(bodyOut);
            bodyOut.flush();
            out.writeLong(counting.count - bodyStart);
            out.flush();
            int sum = (int) crc.getValue();
            DataOutputStream tail = new DataOutputStream(file);
            tail.writeInt(sum);
            tail.writeInt(END_MAGIC);
            tail.flush();
            ch.force(true);
        });
    }

    /**
     * Installs a snapshot received from another server (the bytes of its snapshot file, as stored by
     * {@link #write}, e.g. streamed from {@link #fileOf}): temp file, fsync, checked whole (header, length, CRC)
     * before an atomic rename into place and a directory fsync (docs/replication.md, Persistence rules, P3 b). Replaces
     * an existing snapshot of the same zxid. Returns the file.
     *
     * @throws CorruptSnapshotException if the bytes are not an intact snapshot of {@code zxid}; nothing is kept
     * @throws StorageException         on I/O errors; no partial file is left behind
     */
    public Path install(long zxid, InputStream snapshotFile) {
        if (zxid < 0) {
            throw new IllegalArgumentException("negative zxid " + zxid);
        }
        Objects.requireNonNull(snapshotFile, "snapshotFile");
        return publish(zxid, "install", (ch, tmp) -> {
            OutputStream out = Channels.newOutputStream(ch);
            snapshotFile.transferTo(out);
            out.flush();
            ch.force(true);
            String problem = verify(tmp, zxid);
            if (problem != null) {
                throw new CorruptSnapshotException("received snapshot 0x" + Long.toHexString(zxid) + " is damaged: "
                        + problem);
            }
        });
    }

    /**
     * The file a snapshot being received from another server is written to ({@code snapshot.<hex>.part}) until
     * {@link #installReceived} checks it and renames it into place; {@link #open} deletes leftovers.
     */
    public Path partFile(long zxid) {
        return dir.resolve(PREFIX + StorageFiles.hex(zxid) + ".part");
    }

    /**
     * Installs snapshot {@code zxid} received into {@link #partFile} (docs/replication.md, Persistence rules, P3 b):
     * fsyncs the file, checks it whole (header, length, CRC), loads it with {@code reader} — so a snapshot this server
     * cannot read never replaces anything — and only then renames it into place and fsyncs the directory. Replaces an
     * existing snapshot of the same zxid. Returns the loaded snapshot. The part file is gone afterwards, whatever the
     * outcome.
     *
     * @throws CorruptSnapshotException if the file is not an intact snapshot of {@code zxid} or the reader fails
     * @throws StorageException         on I/O errors
     */
    public <T> Snapshot<T> installReceived(long zxid, SnapshotReader<T> reader) {
        Objects.requireNonNull(reader, "reader");
        Path part = partFile(zxid);
        Path target = fileOf(zxid);
        try {
            try (FileChannel ch = FileChannel.open(part, StandardOpenOption.WRITE)) {
                ch.force(true);
            }
            String problem = verify(part, zxid);
            if (problem != null) {
                throw new CorruptSnapshotException("received snapshot 0x" + Long.toHexString(zxid) + " is damaged: "
                        + problem);
            }
            T state;
            try {
                state = readBody(part, zxid, reader);
            } catch (IOException | RuntimeException e) {
                throw new CorruptSnapshotException("received snapshot 0x" + Long.toHexString(zxid)
                        + " cannot be read: " + e);
            }
            Files.move(part, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            StorageFiles.fsyncDirectory(dir);
            return new Snapshot<>(zxid, state);
        } catch (IOException | RuntimeException e) {
            try {
                Files.deleteIfExists(part);
            } catch (IOException suppressed) {
                e.addSuppressed(suppressed);
            }
            if (e instanceof StorageException s) {
                throw s;
            }
            throw new StorageException("cannot install received snapshot " + target + ": " + e, e);
        }
    }

    /** Fills a temp file (and fsyncs it); {@link #publish} then renames it into place. */
    private interface TempFileFiller {
        void fill(FileChannel channel, Path tmp) throws IOException;
    }

    /**
     * Snapshot {@code zxid} made durable the one safe way: filled into a temp file by {@code filler} (which fsyncs
     * it), renamed atomically over the target, directory fsynced; on any failure the temp file is deleted and a
     * {@link StorageException} thrown.
     */
    private Path publish(long zxid, String action, TempFileFiller filler) {
        Path target = fileOf(zxid);
        Path tmp = dir.resolve(target.getFileName() + ".tmp");
        try {
            try (FileChannel ch = StorageFiles.create(tmp, StandardOpenOption.TRUNCATE_EXISTING,
                    StandardOpenOption.WRITE)) {
                filler.fill(ch, tmp);
            }
            Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            StorageFiles.fsyncDirectory(dir);
            return target;
        } catch (IOException | RuntimeException e) {
            try {
                Files.deleteIfExists(tmp);
            } catch (IOException suppressed) {
                e.addSuppressed(suppressed);
            }
            if (e instanceof StorageException s) {
                throw s;
            }
            throw new StorageException("cannot " + action + " snapshot " + target + ": " + e, e);
        }
    }

    /** The zxids of the snapshot files present, newest first (validity not checked). */
    public List<Long> list() {
        List<Long> zxids = new ArrayList<>();
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, PREFIX + "*")) {
            for (Path p : files) {
                long z = StorageFiles.parseHexSuffix(p.getFileName().toString(), PREFIX);
                if (z >= 0) {
                    zxids.add(z);
                }
            }
        } catch (IOException e) {
            throw new StorageException("cannot list snapshots in " + dir + ": " + e, e);
        }
        zxids.sort(Comparator.reverseOrder());
        return zxids;
    }

    /**
     * Loads the newest snapshot that is intact and readable; damaged ones are skipped with one warning each.
     * Empty when there is no usable snapshot (recovery then starts from an empty state and the whole log).
     */
    public <T> Optional<Snapshot<T>> loadNewestValid(SnapshotReader<T> reader) {
        Objects.requireNonNull(reader, "reader");
        for (long zxid : list()) {
            Path file = fileOf(zxid);
            try {
                String problem = verify(file, zxid);
                if (problem != null) {
                    LOG.warn("Skipping damaged snapshot {}: {}", file, problem);
                    continue;
                }
                return Optional.of(new Snapshot<>(zxid, readBody(file, zxid, reader)));
            } catch (IOException | RuntimeException e) {
                LOG.warn("Skipping unreadable snapshot {}: {}", file, e.toString());
            }
        }
        return Optional.empty();
    }

    /** Null when the file is complete and its checksum matches, else what is wrong. */
    static String verify(Path file, long zxid) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            long size = ch.size();
            if (size < HEADER_BYTES + TRAILER_BYTES) {
                return "truncated (" + size + " bytes)";
            }
            ByteBuffer trailer = ByteBuffer.allocate(TRAILER_BYTES);
            readFully(ch, trailer, size - TRAILER_BYTES);
            long bodyLength = trailer.getLong(0);
            int storedCrc = trailer.getInt(8);
            if (trailer.getInt(12) != END_MAGIC) {
                return "truncated or overwritten (no end marker)";
            }
            if (bodyLength != size - HEADER_BYTES - TRAILER_BYTES) {
                return "length mismatch (body " + bodyLength + " bytes, file " + size + " bytes)";
            }
            ByteBuffer header = ByteBuffer.allocate(HEADER_BYTES);
            readFully(ch, header, 0);
            if (header.getInt(0) != MAGIC || header.getInt(4) != VERSION || header.getLong(8) != zxid) {
                return "bad header";
            }
            CRC32C crc = new CRC32C();
            ByteBuffer chunk = ByteBuffer.allocateDirect(1 << 20);
            long at = 0;
            long end = size - 8; // crc covers everything before the crc field
            while (at < end) {
                chunk.clear();
                chunk.limit((int) Math.min(chunk.capacity(), end - at));
                readFully(ch, chunk, at);
                chunk.flip();
                at += chunk.remaining();
                crc.update(chunk);
            }
            if ((int) crc.getValue() != storedCrc) {
                return "checksum mismatch";
            }
            return null;
        }
    }

    private static void readFully(FileChannel ch, ByteBuffer buf, long at) throws IOException {
        while (buf.hasRemaining()) {
            int n = ch.read(buf, at + buf.position());
            if (n < 0) {
                throw new EOFException("unexpected end of " + ch);
            }
        }
    }

    private static <T> T readBody(Path file, long zxid, SnapshotReader<T> reader) throws IOException {
        long bodyLength = Files.size(file) - HEADER_BYTES - TRAILER_BYTES;
        try (InputStream raw = new BufferedInputStream(Files.newInputStream(file), 1 << 16)) {
            raw.skipNBytes(HEADER_BYTES);
            return reader.read(zxid, new DataInputStream(new Bounded(raw, bodyLength)));
        }
    }

    /**
     * Deletes all but the newest {@code keep} snapshot files. Returns the zxid of the oldest snapshot kept (logs
     * up to it may be purged), or empty when there is none.
     */
    public OptionalLong retain(int keep) {
        if (keep < 1) {
            throw new IllegalArgumentException("keep must be >= 1: " + keep);
        }
        List<Long> zxids = list();
        if (zxids.isEmpty()) {
            return OptionalLong.empty();
        }
        boolean deleted = false;
        for (int i = keep; i < zxids.size(); i++) {
            Path p = fileOf(zxids.get(i));
            try {
                deleted |= Files.deleteIfExists(p);
            } catch (IOException e) {
                throw new StorageException("cannot delete snapshot " + p + ": " + e, e);
            }
        }
        if (deleted) {
            StorageFiles.fsyncDirectory(dir);
        }
        return OptionalLong.of(zxids.get(Math.min(keep, zxids.size()) - 1));
    }

    /** Counts bytes and feeds them to a CRC on the way to the file. */
    private static final class CountingCrcOutput extends FilterOutputStream {
        private final CRC32C crc;
        private long count;

        CountingCrcOutput(OutputStream out, CRC32C crc) {
            super(out);
            this.crc = crc;
        }

        @Override
        public void write(int b) throws IOException {
            out.write(b);
            crc.update(b);
            count++;
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            out.write(b, off, len);
            crc.update(b, off, len);
            count += len;
        }
    }

    /** Keeps the body writer from closing the file stream. */
    private static final class NonClosing extends FilterOutputStream {
        NonClosing(OutputStream out) {
            super(out);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            out.write(b, off, len);
        }

        @Override
        public void close() throws IOException {
            out.flush();
        }
    }

    /** Lets the reader see only the body, not the trailer. */
    private static final class Bounded extends FilterInputStream {
        private long left;

        Bounded(InputStream in, long left) {
            super(in);
            this.left = left;
        }

        @Override
        public int read() throws IOException {
            if (left <= 0) {
                return -1;
            }
            int b = in.read();
            if (b >= 0) {
                left--;
            }
            return b;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            if (left <= 0) {
                return -1;
            }
            int n = in.read(b, off, (int) Math.min(len, left));
            if (n > 0) {
                left -= n;
            }
            return n;
        }

        @Override
        public long skip(long n) throws IOException {
            long s = in.skip(Math.min(n, left));
            left -= s;
            return s;
        }

        @Override
        public int available() throws IOException {
            return (int) Math.min(in.available(), left);
        }

        @Override
        public boolean markSupported() {
            return false;
        }
    }
}
