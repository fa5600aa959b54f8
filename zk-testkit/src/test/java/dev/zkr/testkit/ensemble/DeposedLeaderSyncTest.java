package dev.zkr.testkit.ensemble;

import dev.zkr.consensus.Role;
import dev.zkr.client.CreateMode;
import dev.zkr.client.NodeData;
import dev.zkr.client.Stat;
import dev.zkr.client.ZkClient;
import dev.zkr.client.ZkException;
import dev.zkr.server.ZkServer;
import dev.zkr.testkit.TestEnsemble;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

import static dev.zkr.testkit.ensemble.Ensembles.clientOf;
import static dev.zkr.testkit.ensemble.Ensembles.failureCode;
import static dev.zkr.testkit.ensemble.Ensembles.get;
import static dev.zkr.testkit.ensemble.Ensembles.leaderAmong;
import static dev.zkr.testkit.ensemble.Ensembles.settledLeader;
import static dev.zkr.testkit.ensemble.Ensembles.syncedRead;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * ZOOKEEPER-1675 on real sockets. Five servers; the leader and one follower are partitioned from the other three,
 * which elect a new leader and acknowledge a write w. The old leader does not know it is deposed yet: it has a
 * long election timeout (so its check-quorum takes seconds) while the three others have short ones, which makes
 * the "two leaders" window wide and certain instead of a race. A client of the follower on the minority side now
 * runs sync + read. zkr's sync is a quorum round (ReadIndex): the old leader cannot get a quorum to confirm it
 * still leads, so the sync fails (the client would retry elsewhere) and never returns data older than w, the way
 * ZooKeeper's sync does. With the ReadIndex round disabled this test fails.
 */
@Timeout(120)
class DeposedLeaderSyncTest {

    /** The server that will lead when the partition starts: the highest id, which wins elections between equals. */
    private static final int OLD = 4;
    private static final int FOLLOWER = 0;
    private static final int[] MAJORITY = {1, 2, 3};
    private static final Duration SHORT = Duration.ofMillis(400);
    private static final Duration LONG = Duration.ofSeconds(3);

    @Test
    void aSyncThroughADeposedLeaderNeverReturnsOlderThanAMajorityWrite() throws Exception {
        int[] configured = {0};
        try (TestEnsemble e = TestEnsemble.builder().servers(5).electionTimeout(SHORT)
                .configure(b -> {
                    // TestEnsemble configures its servers in index order: the last one gets the long timeout
                    if (configured[0]++ == OLD) {
                        b.electionTimeout(LONG).minSessionTimeout(LONG.multipliedBy(4));
                    }
                }).start()) {
            int leader = settledLeader(e);
            for (int attempt = 0; leader != OLD && attempt < 10; attempt++) {
                e.kill(leader); // server OLD, the highest id, wins the election the kill starts
                e.restart(leader);
                leader = settledLeader(e);
            }
            Assumptions.assumeTrue(leader == OLD, "server " + OLD + " never became the leader");

            ZkClient setup = clientOf(e, MAJORITY);
            setup.create("/k", new byte[] {0}, CreateMode.PERSISTENT);
            ZkClient minority = clientOf(e, Duration.ofSeconds(30), FOLLOWER);
            minority.sync("/k");
            assertArrayEquals(new byte[] {0}, minority.getData("/k").data());

            e.partition(OLD, FOLLOWER);
            leaderAmong(e, MAJORITY);
            Ensembles.setRetrying(setup, "/k", new byte[] {1});
            Stat w = setup.exists("/k");
            boolean window = e.server(OLD).role() == Role.LEADER
                    && e.server(FOLLOWER).leaderId() == OLD + 1;
            Assumptions.assumeTrue(window, "the old leader stepped down before the majority's write was acked "
                    + "(roles " + e.roles() + ")");

            CompletableFuture<Void> sync = minority.syncAsync("/k");
            CompletableFuture<NodeData> read = minority.getDataAsync("/k", null);
            if (sync.handle((v, x) -> x == null).get()) {
                NodeData seen = get(read);
                assertTrue(seen.stat().mzxid() >= w.mzxid(), "sync + read through the deposed leader returned zxid 0x"
                        + Long.toHexString(seen.stat().mzxid()) + ", older than the majority's acknowledged write 0x"
                        + Long.toHexString(w.mzxid()));
            }
            assertEquals(ZkException.Code.CONNECTION_LOSS, failureCode(sync),
                    "a sync on the minority side cannot be confirmed by a quorum");
            read.handle((v, x) -> null).get();

            e.heal();
            settledLeader(e);
            assertArrayEquals(new byte[] {1}, syncedRead(e, OLD, "/k").data());
            assertArrayEquals(new byte[] {1}, syncedRead(e, FOLLOWER, "/k").data());
        }
    }
}
