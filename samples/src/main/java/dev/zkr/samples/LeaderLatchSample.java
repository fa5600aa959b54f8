package dev.zkr.samples;

import dev.zkr.client.ZkClient;
import dev.zkr.recipes.LeaderLatch;
import dev.zkr.recipes.Recipes;
import dev.zkr.testkit.TestEnsemble;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Leader election: three candidates, each with its own session, queue in a fair {@code LeaderLatch}. The leader
 * steps down, then the next one crashes (the server expires its session): leadership moves on in arrival order, each
 * new leader has a larger fencing token, and the crashed candidate rejoins at the back with a new session.
 */
public final class LeaderLatchSample {

    public static void main(String[] args) {
        Samples.quietLogs();
        try (TestEnsemble ensemble = TestEnsemble.builder().servers(1).start()) {
            List<ZkClient> clients = new ArrayList<>();
            List<LeaderLatch> latches = new ArrayList<>();
            for (String id : List.of("alice", "bob", "carol")) {
                ZkClient client = ensemble.newClient();
                LeaderLatch latch = Recipes.using(client).leaderLatch("/election").id(id)
                        .onElected(l -> Samples.say("%s is leader now (fencing token %d)", l.id(), l.fencingToken()))
                        .onRevoked(l -> Samples.say("%s is no longer leader", l.id()))
                        .start();
                Samples.awaitTrue(() -> latch.participants().contains(id), id + " to queue");
                clients.add(client);
                latches.add(latch);
            }
            LeaderLatch alice = latches.get(0);
            LeaderLatch bob = latches.get(1);
            LeaderLatch carol = latches.get(2);
            alice.await(Duration.ofSeconds(10));
            Samples.say("queue: %s", alice.participants());

            Samples.say("alice steps down");
            alice.close();
            bob.await(Duration.ofSeconds(10));

            Samples.say("bob crashes: the server expires his session");
            ensemble.expireSession(clients.get(1).sessionId());
            carol.await(Duration.ofSeconds(10));
            Samples.awaitTrue(() -> carol.participants().size() == 2, "bob to rejoin");
            Samples.say("queue: %s (bob is back, with a new session, behind carol)", carol.participants());

            carol.close();
            bob.await(Duration.ofSeconds(10));
            Samples.say("leader: %s", bob.leaderId().orElse("nobody"));
            bob.close();
        }
    }
}
