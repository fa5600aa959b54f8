package dev.zkr.testkit.ensemble;

import dev.zkr.client.CreateMode;
import dev.zkr.client.ZkClient;
import dev.zkr.testkit.TestEnsemble;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.List;

import static dev.zkr.testkit.ensemble.Ensembles.clientOf;
import static dev.zkr.testkit.ensemble.Ensembles.createAll;
import static dev.zkr.testkit.ensemble.Ensembles.names;
import static dev.zkr.testkit.ensemble.Ensembles.syncedRead;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * Membership changes on a real ensemble (docs/membership.md): a server joins as a learner and becomes a voter once
 * it caught up, a member (the leader included) is removed and stopped once its removal committed, an observer serves
 * clients without voting, and a restarted member rebuilds its membership from its data directory alone.
 */
@Timeout(180)
class MembershipChangeTest {

    @Test
    void aServerJoinsCatchesUpAndVotesAndTheLeaderIsRemoved() throws Exception {
        try (TestEnsemble e = TestEnsemble.builder().servers(3).start()) {
            ZkClient c = e.newClient();
            c.create("/before", new byte[] {1}, CreateMode.PERSISTENT);
            createAll(c, "/before-", 0, 200);

            int added = e.addServer();
            assertEquals(3, added);
            assertEquals(List.of(0, 1, 2, 3), e.voters());
            assertArrayEquals(new byte[] {1}, syncedRead(e, added, "/before").data(), "the new voter caught up");

            int leader = e.leader();
            e.removeServer(leader);
            assertFalse(e.isRunning(leader));
            assertEquals(3, e.voters().size());
            assertFalse(e.voters().contains(leader));
            int newLeader = e.leader();
            ZkClient d = clientOf(e, added);
            d.create("/after", new byte[] {2}, CreateMode.PERSISTENT);
            for (int i : e.voters()) {
                assertArrayEquals(new byte[] {2}, syncedRead(e, i, "/after").data(), "server " + i);
            }
            assertFalse(e.connectString().contains(":" + e.port(leader)), e.connectString());
            assertThrows(IllegalStateException.class, () -> e.restart(leader));
            // a member restarted with its original config lines finds the membership in its data directory
            int other = e.voters().stream().filter(i -> i != newLeader && i != added).findFirst().orElseThrow();
            e.restart(other);
            assertEquals(e.voters(), List.copyOf(new java.util.TreeSet<>(e.server(other).membership()
                    .ids(dev.zkr.client.EnsembleMember.Role.VOTER).stream().map(id -> id - 1).toList())));
            assertEquals(names("/before-", 0, 200).size(), 200);
        }
    }

    @Test
    void observersServeClientsAndCountTowardNoQuorum() throws Exception {
        try (TestEnsemble e = TestEnsemble.builder().servers(3).start()) {
            int o1 = e.addObserver();
            int o2 = e.addObserver();
            assertEquals(List.of(0, 1, 2), e.voters());
            ZkClient c = clientOf(e, o1);
            c.create("/via-observer", new byte[] {7}, CreateMode.PERSISTENT);
            assertArrayEquals(new byte[] {7}, syncedRead(e, 0, "/via-observer").data());
            assertArrayEquals(new byte[] {7}, syncedRead(e, o2, "/via-observer").data());
            // two of three voters down: the leader and two observers run (3 of 5 servers), yet there is no quorum,
            // so the leader steps down (check-quorum) and nothing commits until a voter is back
            int leader = e.leader();
            int[] followers = Ensembles.others(3, leader);
            e.kill(followers[0]);
            e.kill(followers[1]);
            Ensembles.await("the leader without a quorum of voters steps down", () -> !e.server(leader).isLeading());
            e.restart(followers[0]);
            Ensembles.createRetrying(c, "/after-quorum", new byte[] {8});
            assertArrayEquals(new byte[] {8}, syncedRead(e, o2, "/after-quorum").data());
        }
    }
}
