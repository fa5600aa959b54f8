package dev.zkr.storage;

import static dev.zkr.storage.LogTesting.payload;
import static dev.zkr.storage.LogTesting.readAll;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** kill -9 during a burst of appends: every acknowledged record survives intact, no partial record is replayed. */
class CrashTest {

    @TempDir
    Path dir;

    @Test
    void killDuringWriteBurstLosesNoAcknowledgedRecord() throws Exception {
        long lastAcked = 0;
        for (int round = 0; round < 2; round++) { // the second round also recovers a log that was crashed before
            List<Long> acked = runAndKill(400 + round * 300);
            assertTrue(acked.size() >= 400, "acks seen: " + acked.size());
            for (int i = 1; i < acked.size(); i++) {
                assertTrue(acked.get(i) > acked.get(i - 1), "acks in zxid order");
            }
            assertTrue(acked.get(0) > lastAcked);
            lastAcked = acked.get(acked.size() - 1);
            try (TxnLog log = TxnLog.open(dir, LogConfig.defaults().withSegmentBytes(64 << 10))) {
                List<LogRecord> records = readAll(log, 0);
                assertTrue(records.size() >= lastAcked, records.size() + " records, last ack " + lastAcked);
                for (int i = 0; i < records.size(); i++) {
                    LogRecord r = records.get(i);
                    assertEquals(i + 1, r.zxid(), "contiguous zxids");
                    assertArrayEquals(payload(r.zxid()), r.payload(), "intact payload of " + r.zxid());
                }
                assertEquals(records.size(), log.lastZxid());
            }
        }
    }

    /** Runs a {@link CrashWriter}, kills it with SIGKILL after {@code acks} acknowledgements; returns all acks. */
    private List<Long> runAndKill(int acks) throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process p = new ProcessBuilder(java, "-Xmx128m", "-cp", System.getProperty("java.class.path"),
                CrashWriter.class.getName(), dir.toString())
                .redirectError(ProcessBuilder.Redirect.INHERIT)
                .start();
        List<Long> acked = new ArrayList<>();
        try (BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(),
                StandardCharsets.US_ASCII))) {
            String line;
            while ((line = out.readLine()) != null) {
                acked.add(Long.parseLong(line.trim()));
                if (acked.size() == acks) {
                    // SIGKILL through the handle: Process.destroyForcibly would also close our end of the pipe,
                    // losing acks the child printed just before it died
                    p.toHandle().destroyForcibly();
                }
            }
        } finally {
            p.destroyForcibly();
            assertTrue(p.waitFor(10, TimeUnit.SECONDS));
        }
        return acked;
    }
}
