package dev.zkr.testkit.ensemble;

import dev.zkr.client.CreateMode;
import dev.zkr.client.ZkClient;
import dev.zkr.testkit.TestEnsemble;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static dev.zkr.testkit.ensemble.Ensembles.await;
import static dev.zkr.testkit.ensemble.Ensembles.childrenOn;
import static dev.zkr.testkit.ensemble.Ensembles.clientOf;
import static dev.zkr.testkit.ensemble.Ensembles.createAll;
import static dev.zkr.testkit.ensemble.Ensembles.names;
import static dev.zkr.testkit.ensemble.Ensembles.others;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Kill of a follower of 3: the leader keeps leading in the same epoch and commits with the other follower; the
 * follower, restarted on its data, catches up with every write made while it was down, and serves them.
 */
@Timeout(120)
class FollowerKillRestartTest {

    @Test
    void theLeaderKeepsCommittingAndTheRestartedFollowerCatchesUp() throws Exception {
        try (TestEnsemble e = TestEnsemble.builder().servers(3).start()) {
            int leader = e.leader();
            long epoch = e.server(leader).epoch();
            int follower = others(3, leader)[0];
            ZkClient c = clientOf(e, leader);
            c.create("/k", new byte[0], CreateMode.PERSISTENT);
            createAll(c, "/k/before-", 0, 10);

            e.kill(follower);
            createAll(c, "/k/down-", 0, 30); // committed by the leader and the remaining follower
            assertTrue(e.server(leader).isLeading(), "roles " + e.roles());
            assertEquals(epoch, e.server(leader).epoch(), "the kill of a follower caused an election");

            e.restart(follower);
            long target = e.server(leader).lastZxid();
            await(() -> "restarted follower " + follower + " applies 0x" + Long.toHexString(target),
                    () -> e.server(follower).lastZxid() >= target);
            var expected = new java.util.TreeSet<>(names("before-", 0, 10));
            expected.addAll(names("down-", 0, 30));
            assertEquals(expected, childrenOn(e, follower, "/k"));
            createAll(c, "/k/after-", 0, 5);
            expected.addAll(names("after-", 0, 5));
            assertEquals(expected, childrenOn(e, follower, "/k"), "the restarted follower follows new writes");
            assertEquals(epoch, e.server(leader).epoch(), "the restart of a follower caused an election");
        }
    }
}
