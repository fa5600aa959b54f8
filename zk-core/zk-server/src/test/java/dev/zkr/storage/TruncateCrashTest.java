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

/**
 * kill -9 in the middle of {@link TxnLog#truncateAfter}, at every step of it in turn: the reopened log is the old
 * one (killed before the intent was durable) or the truncated one, never anything else, and appends after it
 * continue with new content for the reused zxids.
 */
class TruncateCrashTest {

    @TempDir
    Path root;

    private static final long LAST = 300;
    private static final long KEEP = 70;

    @Test
    void killAtEveryStepOfATruncateLeavesTheOldOrTheTruncatedLog() throws Exception {
        int stopAt = 1;
        boolean finished = false;
        int sawOld = 0;
        int sawTruncated = 0;
        while (!finished) {
            Path dir = root.resolve("run" + stopAt);
            try (TxnLog log = TxnLog.open(dir, TruncateTest.SMALL)) {
                TruncateTest.fill(log, 1, LAST);
                assertTrue(log.segmentFiles().size() > 4);
            }
            List<String> steps = runAndKill(dir, stopAt);
            finished = steps.contains("DONE");
            assertTrue(finished || steps.get(steps.size() - 1).equals("STOPPED"), steps.toString());
            try (TxnLog log = TxnLog.open(dir, TruncateTest.SMALL)) {
                List<LogRecord> records = readAll(log, 0);
                if (records.size() == LAST) {
                    sawOld++;
                    assertEquals(1, stopAt, "only a kill before the intent is durable keeps the old log: " + steps);
                } else {
                    sawTruncated++;
                    assertEquals(KEEP, records.size(), "the old or the truncated log, after " + steps);
                }
                for (LogRecord r : records) {
                    assertArrayEquals(payload(r.zxid()), r.payload());
                }
                assertEquals(List.of(), TruncateTest.intents(dir));
                long last = log.lastZxid();
                for (long z = last + 1; z <= last + 20; z++) {
                    log.append(z, TruncateTest.newPayload(z));
                }
                log.sync().join();
            }
            try (TxnLog log = TxnLog.open(dir, TruncateTest.SMALL)) {
                List<LogRecord> records = readAll(log, 0);
                long keep = records.size() - 20;
                assertTrue(keep == KEEP || keep == LAST);
                TruncateTest.assertTruncatedAndContinued(records, keep, keep + 20);
            }
            stopAt++;
        }
        assertEquals(1, sawOld);
        assertTrue(sawTruncated >= 5, "steps covered: " + sawTruncated); // intent, deletions, cut, new segment
    }

    /** Runs a {@link TruncateCrasher} and SIGKILLs it when it says STOPPED; returns the steps it printed. */
    private static List<String> runAndKill(Path dir, int stopAt) throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process p = new ProcessBuilder(java, "-Xmx64m", "-cp", System.getProperty("java.class.path"),
                TruncateCrasher.class.getName(), dir.toString(), Long.toString(KEEP), Integer.toString(stopAt))
                .redirectError(ProcessBuilder.Redirect.INHERIT)
                .start();
        List<String> steps = new ArrayList<>();
        try (BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(),
                StandardCharsets.US_ASCII))) {
            String line;
            while ((line = out.readLine()) != null) {
                steps.add(line);
                if (line.equals("STOPPED")) {
                    p.toHandle().destroyForcibly(); // SIGKILL
                }
            }
        } finally {
            p.destroyForcibly();
            assertTrue(p.waitFor(30, TimeUnit.SECONDS));
        }
        return steps;
    }
}
