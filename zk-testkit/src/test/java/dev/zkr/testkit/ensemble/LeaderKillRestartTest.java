package dev.zkr.testkit.ensemble;

import dev.zkr.client.ConnectionState;
import dev.zkr.client.CreateMode;
import dev.zkr.client.ZkClient;
import dev.zkr.testkit.TestEnsemble;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.Set;
import java.util.TreeSet;

import static dev.zkr.testkit.ensemble.Ensembles.await;
import static dev.zkr.testkit.ensemble.Ensembles.childrenOn;
import static dev.zkr.testkit.ensemble.Ensembles.clientOf;
import static dev.zkr.testkit.ensemble.Ensembles.createAll;
import static dev.zkr.testkit.ensemble.Ensembles.createRetrying;
import static dev.zkr.testkit.ensemble.Ensembles.leaderAmong;
import static dev.zkr.testkit.ensemble.Ensembles.names;
import static dev.zkr.testkit.ensemble.Ensembles.others;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

/**
 * Kill of the leader of 3: writes resume on the two survivors (a new leader among them), the clients of the
 * surviving followers keep their sessions (a connection whose write the kill left undecided is closed, and its
 * client sends the write again: docs/exactly-once.md), and the killed leader, restarted on its data, catches up with every
 * acknowledged write.
 */
@Timeout(120)
class LeaderKillRestartTest {

    @Test
    void writesResumeOnTheMajorityAndTheRestartedLeaderCatchesUp() throws Exception {
        try (TestEnsemble e = TestEnsemble.builder().servers(3).start()) {
            int leader = e.leader();
            int[] followers = others(3, leader);
            ZkClient c = clientOf(e, followers[0]);
            Ensembles.States states = Ensembles.States.of(c);
            c.create("/k", new byte[0], CreateMode.PERSISTENT);
            createAll(c, "/k/before-", 0, 20);

            e.kill(leader);
            Set<String> acked = new TreeSet<>(names("before-", 0, 20));
            createRetrying(c, "/k/after-0", new byte[] {0});
            acked.add("after-0");
            int next = leaderAmong(e, followers);
            assertNotEquals(leader, next);
            createAll(c, "/k/after-", 1, 20);
            acked.addAll(names("after-", 1, 20));
            assertFalse(states.contains(ConnectionState.LOST),
                    "the client of a surviving follower lost its session: " + states);

            e.restart(leader);
            long target = e.server(next).lastZxid();
            await(() -> "restarted server " + leader + " applies 0x" + Long.toHexString(target) + " (it has 0x"
                    + Long.toHexString(e.isRunning(leader) ? e.server(leader).lastZxid() : -1) + ")",
                    () -> e.server(leader).lastZxid() >= target);
            for (int i = 0; i < 3; i++) {
                assertEquals(acked, childrenOn(e, i, "/k"), "server " + i);
            }
        }
    }
}
