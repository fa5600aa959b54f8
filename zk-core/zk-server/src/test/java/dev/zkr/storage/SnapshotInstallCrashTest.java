package dev.zkr.storage;

import static dev.zkr.storage.LogTesting.payload;
import static dev.zkr.storage.LogTesting.readAll;
import static dev.zkr.storage.SnapTransferFixture.COMMIT;
import static dev.zkr.storage.SnapTransferFixture.FOLLOWER_LAST;
import static dev.zkr.storage.SnapTransferFixture.FOLLOWER_SNAPSHOT;
import static dev.zkr.storage.SnapTransferFixture.LEADER_SNAPSHOT;
import static dev.zkr.storage.SnapTransferFixture.range;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * kill -9 of a follower at every step of a SNAP install (docs/replication.md, Persistence rules, P3: the first cut,
 * received file, snapshot renamed into place, log restarted after it), then recovery as a replica does it: the
 * follower holds either its old committed state (snapshot 30 + log to the commit mark 60) or the leader's snapshot
 * (200, the log restarted after it) — never a mix, never a log with a gap — and keeps logging after it.
 */
class SnapshotInstallCrashTest {

    @TempDir
    Path tmp;

    @Test
    void killAtEveryStepOfAnInstallRecoversTheOldOrTheNewState() throws Exception {
        int stopAt = 1;
        boolean finished = false;
        int sawOld = 0;
        int sawNew = 0;
        List<String> allSteps = new ArrayList<>();
        Path template = tmp.resolve("template");
        SnapTransferFixture.prepare(template);
        while (!finished) {
            Path root = tmp.resolve("run" + stopAt);
            copyTree(template, root);
            List<String> steps = runAndKill(root, stopAt);
            finished = steps.contains("DONE");
            assertTrue(finished || steps.get(steps.size() - 1).equals("STOPPED"), steps.toString());
            if (!finished) {
                allSteps.add(steps.get(steps.size() - 2));
            }
            var r = SnapTransferFixture.recoverFollower(root);
            long next;
            if (r.snapshotZxid() == LEADER_SNAPSHOT) {
                sawNew++;
                assertEquals(range(1, LEADER_SNAPSHOT), r.state(), "after " + steps);
                assertEquals(LEADER_SNAPSHOT, r.lastLoggedZxid());
                next = LEADER_SNAPSHOT + 1;
            } else {
                sawOld++;
                assertEquals(FOLLOWER_SNAPSHOT, r.snapshotZxid(), "after " + steps);
                assertEquals(range(1, COMMIT), r.state(), "the old committed state, after " + steps);
                assertTrue(r.lastLoggedZxid() == FOLLOWER_LAST || r.lastLoggedZxid() == COMMIT,
                        "the old log or the truncated one: " + r.lastLoggedZxid());
                next = r.lastLoggedZxid() + 1;
            }
            assertEquals(List.of(), leftovers(root), "after " + steps);
            try (TxnLog log = TxnLog.open(SnapTransferFixture.followerLog(root), SnapTransferFixture.SMALL)) {
                // the log reads from its start without meeting a gap (the consensus LogView scans it so)
                List<LogRecord> records = readAll(log, log.startsAfterZxid());
                for (LogRecord rec : records) {
                    assertArrayEquals(payload(rec.zxid()), rec.payload());
                }
                for (long z = next; z < next + 10; z++) {
                    log.recordCommitMark(z);
                    log.appendAsync(z, payload(z)).join();
                }
            }
            var again = SnapTransferFixture.recoverFollower(root);
            assertEquals(next + 9, again.appliedZxid(), "logging continues after the recovered state");
            assertEquals(next + 9, again.state().last());
            stopAt++;
        }
        assertTrue(sawOld >= 5, "kills before the snapshot was durable: " + sawOld + " " + allSteps);
        assertTrue(sawNew >= 5, "kills after it (incl. inside the log restart): " + sawNew + " " + allSteps);
        assertTrue(allSteps.contains("received") && allSteps.contains("installed")
                && allSteps.contains("reset intent") && allSteps.contains("log restarted"), allSteps.toString());
    }

    private static void copyTree(Path from, Path to) throws IOException {
        try (var s = Files.walk(from)) {
            for (Path p : s.toList()) {
                Files.copy(p, to.resolve(from.relativize(p).toString()));
            }
        }
    }

    /** Files recovery should have cleaned up: part files, temp files, truncation and restart intents. */
    private static List<String> leftovers(Path root) throws IOException {
        List<String> out = new ArrayList<>();
        for (Path dir : List.of(SnapTransferFixture.followerLog(root), SnapTransferFixture.followerSnapshots(root))) {
            try (var s = Files.list(dir)) {
                s.map(p -> p.getFileName().toString())
                        .filter(n -> !(n.startsWith("log.") || n.startsWith("snapshot.")) || n.endsWith(".tmp")
                                || n.endsWith(".part"))
                        .forEach(out::add);
            }
        }
        return out;
    }

    /** Runs a {@link SnapshotInstallCrasher} and SIGKILLs it when it says STOPPED; returns the steps it printed. */
    private static List<String> runAndKill(Path root, int stopAt) throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process p = new ProcessBuilder(java, "-Xmx64m", "-cp", System.getProperty("java.class.path"),
                SnapshotInstallCrasher.class.getName(), root.toString(), Integer.toString(stopAt))
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
