package dev.zkr.testkit.ensemble;

import dev.zkr.client.ConnectionState;
import dev.zkr.client.CreateMode;
import dev.zkr.client.ZkClient;
import dev.zkr.testkit.TestEnsemble;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;

import static dev.zkr.testkit.ensemble.Ensembles.canary;
import static dev.zkr.testkit.ensemble.Ensembles.clientCreatedOn;
import static dev.zkr.testkit.ensemble.Ensembles.get;
import static dev.zkr.testkit.ensemble.Ensembles.leaderAmong;
import static dev.zkr.testkit.ensemble.Ensembles.others;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;

/**
 * Sessions with the shortest timeout an ensemble allows (4 x the election timeout) survive a kill of the leader
 * of 5: the new leader gives every session a full timeout from its election, so neither the sessions of the dead
 * leader's clients (whose touches only the dead leader saw; here the client can re-attach only after the new
 * leader took over) nor those of the followers' clients expire (checked: without that rule this fails). Time is
 * measured by canary sessions that are left to expire (no sleeps): one before the kill, so the dead leader's
 * touches are older than a timeout when it dies, one after the election, so the new leader had a full timeout in
 * which to expire anybody.
 */
@Timeout(120)
class FailoverExpiresNoSessionTest {

    private static final Duration ELECTION = Duration.ofMillis(400);
    private static final Duration SESSION = ELECTION.multipliedBy(4);

    @Test
    void aLeaderKillExpiresNoSession() throws Exception {
        try (TestEnsemble e = TestEnsemble.builder().servers(5).electionTimeout(ELECTION).start()) {
            int leader = e.leader();
            int[] followers = others(5, leader);
            int slow = followers[0];
            int[] rest = others(5, leader, slow);
            // the leader's client can move only to a follower that is cut off until the new leader is elected, so
            // it re-attaches (and is touched again) only after the new leader took over its session
            ZkClient ofLeader = clientCreatedOn(e, SESSION, leader, leader, slow);
            ZkClient ofFollower = clientCreatedOn(e, SESSION, rest[0]);
            Ensembles.States leaderStates = Ensembles.States.of(ofLeader);
            Ensembles.States followerStates = Ensembles.States.of(ofFollower);
            assertEquals(SESSION.toMillis(), ofLeader.sessionTimeout().toMillis(), "negotiated timeout");
            ofLeader.create("/of-leader", new byte[0], CreateMode.EPHEMERAL);
            ofFollower.create("/of-follower", new byte[0], CreateMode.EPHEMERAL);

            get(canary(e, leader, "/canary-before", (int) SESSION.toMillis(), ofFollower));
            e.isolate(slow);
            e.kill(leader);
            int next = leaderAmong(e, rest);
            e.heal();
            get(canary(e, next, "/canary-after", (int) SESSION.toMillis(), ofFollower));

            assertNotNull(ofFollower.exists("/of-leader"), "the failover expired the dead leader's client's session");
            assertNotNull(ofFollower.exists("/of-follower"), "the failover expired a follower's client's session");
            ofLeader.create("/still-here", new byte[0], CreateMode.EPHEMERAL);
            assertFalse(leaderStates.contains(ConnectionState.LOST), "states " + leaderStates);
            assertFalse(followerStates.contains(ConnectionState.LOST), "states " + followerStates);
        }
    }
}
