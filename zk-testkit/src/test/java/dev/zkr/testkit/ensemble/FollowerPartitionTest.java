package dev.zkr.testkit.ensemble;

import dev.zkr.consensus.Role;
import dev.zkr.client.ConnectionState;
import dev.zkr.client.CreateMode;
import dev.zkr.client.ZkClient;
import dev.zkr.server.ZkServer;
import dev.zkr.testkit.TestEnsemble;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.Set;
import java.util.TreeSet;

import static dev.zkr.testkit.ensemble.Ensembles.await;
import static dev.zkr.testkit.ensemble.Ensembles.childrenOn;
import static dev.zkr.testkit.ensemble.Ensembles.clientOf;
import static dev.zkr.testkit.ensemble.Ensembles.createAll;
import static dev.zkr.testkit.ensemble.Ensembles.creator;
import static dev.zkr.testkit.ensemble.Ensembles.names;
import static dev.zkr.testkit.ensemble.Ensembles.others;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A follower of 3 partitioned away: the leader keeps its epoch and commits with the other follower; the
 * partitioned follower's client moves to the majority with its session (SUSPENDED, RECONNECTED, never LOST); after
 * the heal the follower rejoins without deposing the leader (pre-vote) and holds every write.
 */
@Timeout(120)
class FollowerPartitionTest {

    @Test
    void theMajorityKeepsCommittingAndTheHealedFollowerCatchesUp() throws Exception {
        try (TestEnsemble e = TestEnsemble.builder().servers(3).start()) {
            int leader = e.leader();
            long epoch = e.server(leader).epoch();
            ZkClient onFollower = clientOf(e, others(3, leader));
            int follower = creator(onFollower);
            Ensembles.States states = Ensembles.States.of(onFollower);
            onFollower.create("/k", new byte[0], CreateMode.PERSISTENT);
            onFollower.create("/eph", new byte[0], CreateMode.EPHEMERAL);
            ZkClient onLeader = clientOf(e, leader);

            e.isolate(follower);
            createAll(onLeader, "/k/majority-", 0, 20);
            // the partitioned follower lets its client go; the client re-attaches to the other follower
            states.awaitState(ConnectionState.RECONNECTED);
            createAll(onFollower, "/k/moved-", 0, 5);
            assertTrue(onFollower.exists("/eph") != null, "the moved client's ephemeral is gone");
            await(() -> "the partitioned follower stops following (roles " + e.roles() + ")",
                    () -> e.server(follower).role() != Role.FOLLOWER
                            || e.server(follower).leaderId() < 0);

            e.heal();
            long target = e.server(leader).lastZxid();
            await(() -> "the healed follower applies 0x" + Long.toHexString(target) + " (roles " + e.roles() + ")",
                    () -> e.server(follower).lastZxid() >= target);
            Set<String> acked = new TreeSet<>(names("majority-", 0, 20));
            acked.addAll(names("moved-", 0, 5));
            assertEquals(acked, childrenOn(e, follower, "/k"));
            assertTrue(e.server(leader).isLeading(), "roles " + e.roles());
            assertEquals(epoch, e.server(leader).epoch(), "the healed follower deposed the leader");
            assertFalse(states.contains(ConnectionState.LOST), "states " + states);
        }
    }
}
