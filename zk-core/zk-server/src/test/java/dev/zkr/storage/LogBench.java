package dev.zkr.storage;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Semaphore;

/**
 * Micro-benchmark (not a test): appends/s with 800 appends in flight, 150-byte records, real fsync.
 * Run: {@code java -cp <test classpath> dev.zkr.storage.LogBench [seconds] [dir]}.
 */
public final class LogBench {

    private LogBench() {
    }

    public static void main(String[] args) throws Exception {
        int seconds = args.length > 0 ? Integer.parseInt(args[0]) : 5;
        Path dir = args.length > 1 ? Path.of(args[1]) : Files.createTempDirectory("zkr-logbench");
        int inFlight = 800;
        byte[] payload = new byte[150];
        Semaphore permits = new Semaphore(inFlight);
        try (TxnLog log = TxnLog.open(dir)) {
            long zxid = 0;
            long warmupEnd = System.nanoTime() + 1_000_000_000L;
            while (System.nanoTime() < warmupEnd) {
                permits.acquire();
                log.appendAsync(++zxid, payload).whenComplete((v, e) -> permits.release());
            }
            long startZxid = zxid;
            long startFsyncs = log.fsyncCount();
            long t0 = System.nanoTime();
            long end = t0 + seconds * 1_000_000_000L;
            while (System.nanoTime() < end) {
                permits.acquire();
                log.appendAsync(++zxid, payload).whenComplete((v, e) -> permits.release());
            }
            permits.acquire(inFlight);
            double secs = (System.nanoTime() - t0) / 1e9;
            long n = zxid - startZxid;
            long fsyncs = log.fsyncCount() - startFsyncs;
            System.out.printf("%d appends in %.2f s = %.0f appends/s, %d fsyncs (%.1f records/fsync)%n",
                    n, secs, n / secs, fsyncs, (double) n / fsyncs);
        } finally {
            if (args.length < 2) {
                LogTesting.deleteRecursively(dir);
            }
        }
    }
}
