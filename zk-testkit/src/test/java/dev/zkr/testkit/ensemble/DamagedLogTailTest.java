package dev.zkr.testkit.ensemble;

import dev.zkr.client.CreateMode;
import dev.zkr.client.ZkClient;
import dev.zkr.storage.SegmentLayout;
import dev.zkr.storage.TxnLog;
import dev.zkr.testkit.TestEnsemble;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;

import static dev.zkr.testkit.ensemble.Ensembles.await;
import static dev.zkr.testkit.ensemble.Ensembles.childrenOn;
import static dev.zkr.testkit.ensemble.Ensembles.clientOf;
import static dev.zkr.testkit.ensemble.Ensembles.createAll;
import static dev.zkr.testkit.ensemble.Ensembles.names;
import static dev.zkr.testkit.ensemble.Ensembles.others;
import static dev.zkr.testkit.ensemble.Ensembles.settledLeader;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A follower's log loses the end of its last record while the server is down (a write torn by a power loss, or
 * damage from outside). Restarted, it keeps the valid prefix of its log (the torn record is cut at open, not
 * treated as corruption), and the leader syncs it the record it lost and everything written while it was down:
 * it ends with exactly the others' history and follows later writes.
 */
@Timeout(120)
class DamagedLogTailTest {

    @TempDir
    Path scratch;

    @Test
    void aFollowerWithATornLogTailRecoversItsPrefixAndSyncsTheRest() throws Exception {
        try (TestEnsemble e = TestEnsemble.builder().servers(3).start()) {
            int leader = settledLeader(e);
            int follower = others(3, leader)[0];
            ZkClient c = clientOf(e, leader);
            c.create("/k", new byte[0], CreateMode.PERSISTENT);
            createAll(c, "/k/before-", 0, 20);
            long before = e.server(leader).lastZxid();
            await(() -> "the follower applies 0x" + Long.toHexString(before),
                    () -> e.server(follower).lastZxid() >= before);
            e.kill(follower);

            Path segment = SegmentLayout.lastSegment(e.dataDir(follower).resolve("log")).orElseThrow();
            long loggedBefore = lastLoggedZxid(copyOf(segment.getParent()));
            tearLastRecord(segment);
            long loggedAfter = lastLoggedZxid(copyOf(segment.getParent()));
            assertTrue(loggedAfter < loggedBefore, "the damage cut a record: last logged 0x"
                    + Long.toHexString(loggedBefore) + " then 0x" + Long.toHexString(loggedAfter));

            createAll(c, "/k/while-down-", 0, 10);
            e.restart(follower);
            int now = settledLeader(e);
            long target = e.server(now).lastZxid();
            await(() -> "the restarted follower applies 0x" + Long.toHexString(target),
                    () -> e.server(follower).lastZxid() >= target);
            Set<String> expected = new TreeSet<>(names("before-", 0, 20));
            expected.addAll(names("while-down-", 0, 10));
            for (int i = 0; i < 3; i++) {
                assertEquals(expected, childrenOn(e, i, "/k"), "server " + i);
            }
            createAll(c, "/k/after-", 0, 3);
            expected.addAll(names("after-", 0, 3));
            long last = e.server(e.leader()).lastZxid();
            await(() -> "the follower applies the later writes", () -> e.server(follower).lastZxid() >= last);
            assertEquals(expected, childrenOn(e, follower, "/k"), "the restarted follower follows new writes");
        }
    }

    /** Zeroes the second half of the segment's last record, as a write torn by a power loss leaves it. */
    private static void tearLastRecord(Path segment) throws IOException {
        SegmentLayout.Range last = SegmentLayout.lastRecord(segment);
        long from = last.start() + (last.end() - last.start()) / 2;
        try (FileChannel ch = FileChannel.open(segment, StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.allocate((int) (last.end() - from)), from);
            ch.force(true);
        }
    }

    /** A copy of a log directory, so opening it (which cuts a torn tail) leaves the server's own files alone. */
    private Path copyOf(Path logDir) throws IOException {
        Path copy = Files.createTempDirectory(scratch, "log");
        try (Stream<Path> files = Files.list(logDir)) {
            for (Path f : files.toList()) {
                Files.copy(f, copy.resolve(f.getFileName()));
            }
        }
        return copy;
    }

    private static long lastLoggedZxid(Path logDir) {
        try (TxnLog log = TxnLog.open(logDir)) {
            return log.lastZxid();
        }
    }
}
