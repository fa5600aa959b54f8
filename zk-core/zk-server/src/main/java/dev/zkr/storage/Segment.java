package dev.zkr.storage;

import java.nio.file.Path;

/** One segment file of the log: its path and the zxid of the last record before it. */
record Segment(Path path, long prevZxid) {

    static String fileName(long prevZxid) {
        return LogFormat.SEGMENT_PREFIX + StorageFiles.hex(prevZxid + 1);
    }

    String name() {
        return path.getFileName().toString();
    }
}
