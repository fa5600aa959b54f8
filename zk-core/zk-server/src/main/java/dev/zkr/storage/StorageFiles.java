package dev.zkr.storage;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/** Small file helpers shared by the log and the snapshot store. */
final class StorageFiles {

    private StorageFiles() {
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
