package dev.zkr.storage;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.concurrent.Semaphore;

/**
 * Child process of {@link CrashTest}: appends records 1, 2, 3, ... (payload {@code LogTesting.payload(zxid)}) as
 * fast as it can with 200 in flight and prints each acknowledged zxid on its own line, flushed, until killed.
 */
public final class CrashWriter {

    private CrashWriter() {
    }

    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[0]);
        PrintStream out = new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), false);
        Semaphore inFlight = new Semaphore(200);
        TxnLog log = TxnLog.open(dir, LogConfig.defaults().withSegmentBytes(64 << 10));
        long zxid = log.lastZxid();
        while (true) {
            inFlight.acquire();
            long z = ++zxid;
            log.appendAsync(z, LogTesting.payload(z)).whenComplete((v, e) -> {
                if (e == null) {
                    out.println(z);
                    out.flush();
                }
                inFlight.release();
            });
        }
    }
}
