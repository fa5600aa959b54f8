package dev.zkr.storage;

import java.io.IOException;
import java.nio.file.Path;

/** For tests outside this package: writes a v1 log segment (before commit marks), as an older zkr left it. */
public final class V1Logs {

    private V1Logs() {
    }

    /** A v1 segment in {@code dir} with records {@code first..last} (payloads of {@link LogTesting#payload}). */
    public static void write(Path dir, long prevZxid, long first, long last) throws IOException {
        OldLogs.writeV1Segment(dir, prevZxid, first, last, 4);
    }

    /** The payload {@link #write} gives record {@code zxid}. */
    public static byte[] payload(long zxid) {
        return LogTesting.payload(zxid);
    }
}
