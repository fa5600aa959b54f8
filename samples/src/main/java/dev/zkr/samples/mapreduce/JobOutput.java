package dev.zkr.samples.mapreduce;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

/**
 * The job's output directory on disk (a stand-in for a shared file system such as HDFS or NFS): one
 * {@code part-NNNN} file per reducer partition ("word count" lines, sorted) and the {@link Manifest},
 * {@code _MANIFEST}. Files appear only by an atomic rename of a fully written, fsync'ed temporary file.
 */
final class JobOutput {

    static final String PART_PREFIX = "part-";
    static final String MANIFEST = "_MANIFEST";

    private JobOutput() {
    }

    static String partName(int partition) {
        return PART_PREFIX + Layout.num(partition);
    }

    static Path part(Path dir, int partition) {
        return dir.resolve(partName(partition));
    }

    /** Creates the directory and removes what a previous run left in it (part files, manifest, temporaries). */
    static void prepare(Path dir) {
        try {
            Files.createDirectories(dir);
            try (DirectoryStream<Path> files = Files.newDirectoryStream(dir)) {
                for (Path f : files) {
                    String n = f.getFileName().toString();
                    if (n.startsWith(PART_PREFIX) || n.startsWith(MANIFEST)) {
                        Files.delete(f);
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot prepare the output directory " + dir, e);
        }
    }

    /** The manifest, or {@link Manifest#EMPTY} if none has been written yet. */
    static Manifest readManifest(Path dir) {
        Path m = dir.resolve(MANIFEST);
        try {
            return Manifest.decode(Files.readString(m, StandardCharsets.UTF_8));
        } catch (java.nio.file.NoSuchFileException e) {
            return Manifest.EMPTY;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static byte[] readPart(Path dir, int partition) {
        try {
            return Files.readAllBytes(part(dir, partition));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Writes {@code data} to {@code file} (created or truncated) and forces it to disk. */
    static void writeSynced(Path file, byte[] data) {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            ByteBuffer b = ByteBuffer.wrap(data);
            while (b.hasRemaining()) {
                ch.write(b);
            }
            ch.force(true);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static void deleteIfExists(Path file) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Renames {@code from} onto {@code to} atomically (replacing it): readers see the old file or the new one. */
    static void moveIntoPlace(Path from, Path to) {
        try {
            Files.move(from, to, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
