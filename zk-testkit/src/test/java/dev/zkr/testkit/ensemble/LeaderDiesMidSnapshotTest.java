package dev.zkr.testkit.ensemble;

import dev.zkr.client.CreateMode;
import dev.zkr.client.ZkClient;
import dev.zkr.testkit.TestEnsemble;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import static dev.zkr.testkit.ensemble.Ensembles.await;
import static dev.zkr.testkit.ensemble.Ensembles.clientOf;
import static dev.zkr.testkit.ensemble.Ensembles.leaderAmong;
import static dev.zkr.testkit.ensemble.Ensembles.others;
import static dev.zkr.testkit.ensemble.Ensembles.settledLeader;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The leader dies while a follower is fetching its snapshot (a SNAP sync). The follower gives the transfer up, votes
 * for the other survivor, and is synced by the new leader — so the two survivors form a quorum and take writes. Had
 * it waited for the dead leader's chunks, the new leader would have no quorum until the old one came back.
 */
@Timeout(180)
class LeaderDiesMidSnapshotTest {

    private static final int NODES = 24;
    private static final int NODE_BYTES = 512 * 1024;

    @Test
    void aFollowerGivesUpTheDeadLeadersSnapshotAndIsSyncedByTheNewOne() throws Exception {
        try (TestEnsemble e = TestEnsemble.builder().servers(3)
                .configure(b -> b.snapshotInterval(50).logSegmentBytes(1 << 20).maxDataSize(1 << 20)).start()) {
            int leader = settledLeader(e);
            int behind = others(3, leader)[0];
            int other = others(3, leader, behind)[0];
            ZkClient c = clientOf(e, leader, other);
            c.create("/big", new byte[0], CreateMode.PERSISTENT);
            e.kill(behind);
            // a snapshot of ~12 MB (24 chunks), then enough small writes that it is taken and the log purged
            for (int i = 0; i < NODES; i++) {
                c.create("/big/n" + i, filled(i), CreateMode.PERSISTENT);
            }
            for (int i = 0; i < 150; i++) {
                c.setData("/big", new byte[] {(byte) i}, -1);
            }

            e.restart(behind);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (!e.server(behind).installingSnapshot()) {
                if (e.server(behind).snapshotInstalls() > 0) {
                    fail("the transfer finished before the test could cut it; make the snapshot bigger");
                }
                if (System.nanoTime() > deadline) {
                    fail("the restarted follower did not start a SNAP sync (roles " + e.roles() + ")");
                }
                LockSupport.parkNanos(200_000); // polling server state
            }
            e.server(behind).linkFilter().cut(leader + 1, behind + 1); // no more chunks from the leader
            e.kill(leader);

            int next = leaderAmong(e, other, behind);
            assertEquals(other, next, "the follower without a complete snapshot cannot lead");
            ZkClient onSurvivors = clientOf(e, other, behind);
            onSurvivors.setData("/big", "after".getBytes(), -1); // needs the quorum of the two survivors
            long target = e.server(other).lastZxid();
            await(() -> "the follower is synced by the new leader (applied 0x"
                    + Long.toHexString(e.server(behind).lastZxid()) + " of 0x" + Long.toHexString(target) + ")",
                    () -> e.server(behind).lastZxid() >= target);
            assertTrue(e.server(behind).snapshotInstallsAborted() >= 1, "the transfer was given up");
            e.server(other).linkFilter().heal();
            try (ZkClient onBehind = clientOf(e, behind)) {
                onBehind.sync("/big");
                assertArrayEquals("after".getBytes(), onBehind.getData("/big").data());
                for (int i = 0; i < NODES; i++) {
                    assertArrayEquals(filled(i), onBehind.getData("/big/n" + i).data(), "/big/n" + i);
                }
            }
        }
    }

    private static byte[] filled(int i) {
        byte[] b = new byte[NODE_BYTES];
        Arrays.fill(b, (byte) (i + 1));
        return b;
    }
}
