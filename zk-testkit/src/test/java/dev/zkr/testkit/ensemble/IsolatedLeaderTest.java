package dev.zkr.testkit.ensemble;

import dev.zkr.consensus.Role;
import dev.zkr.client.ConnectionState;
import dev.zkr.client.CreateMode;
import dev.zkr.client.Created;
import dev.zkr.client.ZkClient;
import dev.zkr.client.ZkException;
import dev.zkr.server.ZkServer;
import dev.zkr.testkit.TestEnsemble;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;

import static dev.zkr.testkit.ensemble.Ensembles.await;
import static dev.zkr.testkit.ensemble.Ensembles.childrenOn;
import static dev.zkr.testkit.ensemble.Ensembles.clientOf;
import static dev.zkr.testkit.ensemble.Ensembles.createAll;
import static dev.zkr.testkit.ensemble.Ensembles.get;
import static dev.zkr.testkit.ensemble.Ensembles.leaderAmong;
import static dev.zkr.testkit.ensemble.Ensembles.names;
import static dev.zkr.testkit.ensemble.Ensembles.others;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/**
 * A leader partitioned away from both followers, with a client that can reach only it: it acknowledges none of the
 * writes sent after the isolation, steps down (check-quorum), the majority elects a new leader and commits; after
 * the heal the old leader truncates what it logged alone and catches up, and the client, which kept those writes
 * and sent them again (exactly-once, docs/exactly-once.md), gets each applied once: every server holds exactly the
 * acknowledged writes, those among them. Its client keeps its session (never LOST).
 */
@Timeout(120)
class IsolatedLeaderTest {

    @Test
    void anIsolatedLeaderAcknowledgesNothingStepsDownAndCatchesUpAfterTheHeal() throws Exception {
        try (TestEnsemble e = TestEnsemble.builder().servers(3).start()) {
            int leader = e.leader();
            int[] majority = others(3, leader);
            ZkClient onLeader = clientOf(e, leader);
            Ensembles.States states = Ensembles.States.of(onLeader);
            ZkClient onMajority = clientOf(e, majority);
            onLeader.create("/k", new byte[0], CreateMode.PERSISTENT);
            createAll(onLeader, "/k/before-", 0, 10);

            e.isolate(leader);
            List<CompletableFuture<Created>> isolated = new ArrayList<>();
            for (int i = 0; i < 10; i++) {
                isolated.add(onLeader.createAsync("/k/isolated-" + i, new byte[] {(byte) i}, CreateMode.PERSISTENT));
            }
            await(() -> "the isolated leader steps down (roles " + e.roles() + ")",
                    () -> e.server(leader).role() != Role.LEADER);

            int next = leaderAmong(e, majority);
            createAll(onMajority, "/k/majority-", 0, 20);
            for (CompletableFuture<Created> f : isolated) {
                assertFalse(f.isDone(), "a write sent to an isolated leader was answered: " + f);
            }

            e.heal();
            long target = e.server(next).lastZxid();
            await(() -> "the old leader applies 0x" + Long.toHexString(target),
                    () -> e.server(leader).lastZxid() >= target);
            for (CompletableFuture<Created> f : isolated) {
                get(f); // sent again once the client's server is back in the ensemble: applied, never lost
            }
            Set<String> acked = new TreeSet<>(names("before-", 0, 10));
            acked.addAll(names("majority-", 0, 20));
            for (int i = 0; i < 10; i++) {
                acked.add("isolated-" + i);
            }
            long caughtUp = e.server(next).lastZxid();
            await(() -> "the old leader applies 0x" + Long.toHexString(caughtUp),
                    () -> e.server(leader).lastZxid() >= caughtUp);
            for (int i = 0; i < 3; i++) {
                assertEquals(acked, childrenOn(e, i, "/k"), "server " + i + " (roles " + e.roles() + ")");
            }
            // its client comes back to the healed server with the same session
            onLeader.create("/k/back", new byte[0], CreateMode.EPHEMERAL);
            assertFalse(states.contains(ConnectionState.LOST), "states " + states);
        }
    }
}
