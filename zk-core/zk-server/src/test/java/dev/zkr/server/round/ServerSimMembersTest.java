package dev.zkr.server.round;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import org.junit.jupiter.api.Test;

/**
 * The whole-server simulator with random membership changes ({@link ServerSim.Options#withMembers()},
 * docs/membership.md and docs/testing.md): 3 or 5 servers and {@link ServerSim#SPARES} spares with new ids that join
 * ({@code join=true}); during the faults (crashes, partitions, resets, clock and disk faults, snapshots and SNAP) a
 * server is asked for a random change every 100-400 ms: add a spare as a learner (promoted by the leader once caught
 * up) or an observer, promote an observer, remove any member, the leader included. Removed servers keep running and
 * take faults. Checked besides the simulator's own invariants and history checks: one leader per epoch across
 * memberships, what a server applied durable on a majority of the voters counted with, every server's applied and
 * committed membership the committed sequence's, a leader only while it is a voter (a leader whose removal committed
 * steps down), a change accepted only by the in-service leader, clients served by whichever member (observers and
 * learners too) they connect to.
 *
 * <p>50 seeds under {@code mvn verify}, 10,000 under {@code -Plong} (follows {@code jqwik.tries.default});
 * {@code -Dzkr.sim.members.seeds=N}, {@code -Dzkr.sim.members.firstSeed=F}; {@code -Dzkr.sim.members.seed=S} replays
 * one seed and prints its full trace; {@code -Dzkr.sim.keepGoing=true} runs every seed and lists the failing ones.
 */
class ServerSimMembersTest {

    static long seedCount() {
        String explicit = System.getProperty("zkr.sim.members.seeds");
        if (explicit != null) {
            return Long.parseLong(explicit);
        }
        return Integer.getInteger("jqwik.tries.default", 25) >= 500 ? 10_000 : 50;
    }

    static ServerSim.Options options(long seed, boolean fullTrace) {
        return ServerSim.Options.standard(seed, fullTrace).withNewFaults().withMembers();
    }

    /**
     * The seeds whose first runs found bugs in the main code (docs/membership.md, Tests): 25, a SNAP install of a
     * snapshot without a membership took the replica's own history, with a change the leader's history had dropped;
     * 32 and 35, a removed server kept forwarding its clients' writes, which never completed; 2074, the same for a
     * removed observer that never learned its removal committed (it stays a follower of a leader that no longer
     * sends to it). And 753, the simulator's own: a commit counted with a membership record whose write then failed
     * (disk full) is durable on a majority of that record's voters, which the durability check must accept.
     */
    @Test
    void seedsThatFoundBugs() {
        for (long seed : new long[] {25, 32, 35, 753, 2074}) {
            Throwable t = ServerSimTest.failureOf(seed, options(seed, false));
            if (t != null) {
                fail(ServerSimTest.report(seed, options(seed, false), t), t);
            }
        }
    }

    @Test
    void everySeedKeepsTheMembershipInvariantsAndHistoriesCheck() {
        long seeds = seedCount();
        ServerSim.Stats total = ServerSimTest.runSeeds("zkr.sim.members", "server, membership changes", seeds,
                (seed, trace) -> options(seed, trace));
        if (total != null && seeds >= 50) {
            assertTrue(total.membershipCommitted > seeds && total.leadersRemoved > 0 && total.sparesStarted > 0
                    && total.membershipRefused > 0, "too few membership changes: " + total);
        }
    }
}
