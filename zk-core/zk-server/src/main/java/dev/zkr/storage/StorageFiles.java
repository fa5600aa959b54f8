package dev.zkr.storage;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;

/** Small file helpers shared by the log and the snapshot store (and the server, for its data directory). */
public final class StorageFiles {

    private StorageFiles() {
    }

    private static final boolean POSIX = FileSystems.getDefault().supportedFileAttributeViews().contains("posix");
    private static final FileAttribute<?>[] OWNER_FILE = POSIX
            ? new FileAttribute<?>[] {PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------"))}
            : new FileAttribute<?>[0];
    private static final FileAttribute<?>[] OWNER_DIR = POSIX
            ? new FileAttribute<?>[] {PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------"))}
            : new FileAttribute<?>[0];

    /**
     * Opens {@code file} for writing, creating it readable and writable by the server's user only (rw-------, as a
     * key store: the log and snapshots hold every node's data). A file that exists keeps its permissions.
     */
    static FileChannel create(Path file, OpenOption... options) throws IOException {
        Set<OpenOption> opts = new java.util.HashSet<>(java.util.Arrays.asList(options));
        opts.add(StandardOpenOption.CREATE);
        return FileChannel.open(file, opts, OWNER_FILE);
    }

    /** Creates an empty file readable by the server's user only. */
    static void createEmpty(Path file) throws IOException {
        Files.createFile(file, OWNER_FILE);
    }

    /** Creates {@code dir} and its missing parents, those it creates open to the server's user only (rwx------). */
    public static void createDirectories(Path dir) throws IOException {
        Files.createDirectories(dir, OWNER_DIR);
    }

    /** Makes the creation, rename or deletion of entries in a directory durable. */
    static void fsyncDirectory(Path dir) {
        try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
            ch.force(true);
        } catch (IOException e) {
            throw new StorageException("cannot fsync directory " + dir + ": " + e, e);
        }
    }

    /** A 16-digit lower-case hex rendering of a zxid, as used in file names (sorts like the number). */
    static String hex(long zxid) {
        return String.format("%016x", zxid);
    }

    /** Parses the hex suffix of {@code prefix<hex>}; -1 when the name does not have that form. */
    static long parseHexSuffix(String name, String prefix) {
        if (!name.startsWith(prefix) || name.length() != prefix.length() + 16) {
            return -1;
        }
        try {
            return Long.parseUnsignedLong(name.substring(prefix.length()), 16);
        } catch (NumberFormatException e) {
            return -1;
        }
    }
}
