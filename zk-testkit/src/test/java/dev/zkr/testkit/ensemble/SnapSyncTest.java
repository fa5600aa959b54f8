package dev.zkr.testkit.ensemble;

import dev.zkr.client.CreateMode;
import dev.zkr.client.WatchedEvent;
import dev.zkr.client.ZkClient;
import dev.zkr.testkit.TestEnsemble;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static dev.zkr.testkit.ensemble.EnsembleBasicsTest.createIfAbsent;
import static dev.zkr.testkit.ensemble.EnsembleBasicsTest.retry;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A follower that was down while the others snapshotted and purged their logs catches up by SNAP: it receives the
 * leader's snapshot file over the peer port, installs it, then follows by DIFF; it ends with the same data, and a
 * client that kept a watch on it sees the event of a change it missed.
 */
class SnapSyncTest {

    @Test
    void aFollowerBehindThePurgedLogCatchesUpBySnapshot() throws Exception {
        try (TestEnsemble e = TestEnsemble.builder().servers(3)
                .configure(b -> b.snapshotInterval(50).logSegmentBytes(8192)).start()) {
            int leader = e.leader();
            int behind = (leader + 1) % 3;
            ZkClient c = e.newClient(b -> b.connectString(e.connectString(leader)));
            retry(() -> createIfAbsent(c, "/kept"));
            e.kill(behind);
            for (int i = 0; i < 400; i++) {
                int n = i;
                retry(() -> c.setData(createIfAbsent(c, "/n" + (n % 40)), ("v" + n).getBytes(), -1));
            }
            retry(() -> {
                if (c.exists("/kept") != null) {
                    c.delete("/kept", -1);
                }
                return null;
            });
            Path logDir = e.dataDir(leader).resolve("log");
            long purgedSegments;
            try (Stream<Path> files = Files.list(logDir)) {
                purgedSegments = files.count();
            }
            e.restart(behind);
            ZkClient late = e.newClient(b -> b.connectString(e.connectString(behind)));
            retry(() -> {
                late.sync("/");
                return null;
            });
            for (int j = 0; j < 40; j++) {
                int last = 360 + j;
                assertArrayEquals(("v" + last).getBytes(), late.getData("/n" + j).data(), "/n" + j);
            }
            assertNull(late.exists("/kept"));
            assertEquals(1, e.server(behind).snapshotInstalls(),
                    "the follower caught up by SNAP (log segments left on the leader: " + purgedSegments + ")");
            // it follows by DIFF afterwards, and its watches fire
            CompletableFuture<WatchedEvent> fired = new CompletableFuture<>();
            late.getData("/n0", fired::complete);
            retry(() -> c.setData("/n0", "after".getBytes(), -1));
            assertEquals("/n0", fired.get(30, TimeUnit.SECONDS).path());
            retry(() -> {
                late.sync("/");
                return null;
            });
            assertArrayEquals("after".getBytes(), late.getData("/n0").data());
        }
    }

    /**
     * A chunk asked for twice comes back twice: the leader is paused in the middle of a transfer for longer than the
     * follower waits before asking again (1 s), so two requests for the same chunk are answered when it resumes. The
     * second copy is ignored; refusing it restarted the transfer while the next request was out, and two request
     * streams chased each other forever (zk-bench, a joiner's SNAP on a loaded machine).
     */
    @Test
    void aChunkAnsweredTwiceIsIgnoredAndTheTransferEnds() throws Exception {
        try (TestEnsemble e = TestEnsemble.builder().servers(3).electionTimeout(java.time.Duration.ofSeconds(5))
                .configure(b -> b.snapshotInterval(20).logSegmentBytes(8192)).start()) {
            int leader = e.leader();
            int behind = (leader + 1) % 3;
            ZkClient c = e.newClient(b -> b.connectString(e.connectString(leader)));
            e.kill(behind);
            byte[] big = new byte[500_000];
            for (int i = 0; i < 24; i++) { // a snapshot of ~12 MB: 24 chunks of 512 KiB
                int n = i;
                big[0] = (byte) i;
                retry(() -> createIfAbsent(c, "/big" + n));
                retry(() -> c.setData("/big" + n, big, -1));
            }
            e.restart(behind);
            Ensembles.await("the follower fetches a snapshot", () -> e.server(behind).installingSnapshot()
                    || e.server(behind).snapshotInstalls() > 0);
            e.pause(leader);
            try {
                Thread.sleep(1_500); // the fault's length: past the follower's 1 s before it asks again
            } finally {
                e.resume(leader);
            }
            Ensembles.await("the follower installs the snapshot", () -> e.server(behind).snapshotInstalls() == 1);
            assertEquals(0, e.server(behind).snapshotInstallsAborted());
            assertTrue(e.server(behind).snapshotStaleChunks() > 0, "the pause fell between two chunks: a chunk "
                    + "was asked for twice (else this run proved nothing)");
            ZkClient late = e.newClient(b -> b.connectString(e.connectString(behind)));
            late.sync("/");
            assertEquals((byte) 23, late.getData("/big23").data()[0]);
        }
    }
}
