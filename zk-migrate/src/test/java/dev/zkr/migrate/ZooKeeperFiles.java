package dev.zkr.migrate;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/** ZooKeeper's data files as the tests damage them: the newest by zxid, and a byte pattern's place in one. */
final class ZooKeeperFiles {

    private ZooKeeperFiles() {
    }

    /** The file of {@code dir} named {@code prefix<zxid in hex>} with the highest zxid. */
    static Path newest(Path dir, String prefix) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(p -> p.getFileName().toString().startsWith(prefix))
                    .max((x, y) -> Long.compareUnsigned(zxidOf(x), zxidOf(y))).orElseThrow();
        }
    }

    /** The zxid in a ZooKeeper data file's name ({@code log.1a}, {@code snapshot.2b}). */
    static long zxidOf(Path p) {
        String n = p.getFileName().toString();
        return Long.parseUnsignedLong(n.substring(n.indexOf('.') + 1), 16);
    }

    /** Where {@code needle} first stands in {@code hay}, or -1. */
    static int indexOf(byte[] hay, byte[] needle) {
        outer:
        for (int i = 0; i <= hay.length - needle.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (hay[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }
}
