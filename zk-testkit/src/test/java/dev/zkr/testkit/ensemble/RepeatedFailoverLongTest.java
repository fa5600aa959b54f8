package dev.zkr.testkit.ensemble;

import dev.zkr.client.ConnectionState;
import dev.zkr.client.CreateMode;
import dev.zkr.client.ZkClient;
import dev.zkr.testkit.TestEnsemble;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

import java.util.Set;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import static dev.zkr.testkit.ensemble.Ensembles.childrenOn;
import static dev.zkr.testkit.ensemble.Ensembles.createRetrying;
import static dev.zkr.testkit.ensemble.Ensembles.others;
import static dev.zkr.testkit.ensemble.Ensembles.settledLeader;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Long variant ({@code mvn -Plong}, system property {@code zkr.long=true}): a client writes without pause while the
 * 3-server ensemble goes through rounds of faults — kill and restart of the leader, of a follower, isolation and
 * heal of the leader, of a follower. After every round each server holds every write the client saw acknowledged;
 * the client's session survives all of it.
 */
@EnabledIfSystemProperty(named = "zkr.long", matches = "true")
@Timeout(600)
class RepeatedFailoverLongTest {

    private static final int ROUNDS = 24;

    @Test
    void noAcknowledgedWriteIsLostAcrossRepeatedFaults() throws Exception {
        try (TestEnsemble e = TestEnsemble.builder().servers(3).start()) {
            ZkClient writer = e.newClient();
            Ensembles.States states = Ensembles.States.of(writer);
            writer.create("/w", new byte[0], CreateMode.PERSISTENT);
            Set<String> acked = new ConcurrentSkipListSet<>();
            AtomicBoolean stop = new AtomicBoolean();
            AtomicReference<Throwable> failed = new AtomicReference<>();
            Thread writes = new Thread(() -> {
                try {
                    for (int n = 0; !stop.get(); n++) {
                        String name = String.format("n-%06d", n);
                        createRetrying(writer, "/w/" + name, new byte[0]);
                        acked.add(name);
                    }
                } catch (Throwable t) {
                    failed.set(t);
                }
            }, "writer");
            writes.start();
            try {
                for (int round = 0; round < ROUNDS; round++) {
                    int leader = settledLeader(e);
                    int follower = others(3, leader)[round % 2];
                    switch (round % 4) {
                        case 0 -> {
                            e.kill(leader);
                            awaitProgress(acked);
                            e.restart(leader);
                        }
                        case 1 -> {
                            e.kill(follower);
                            awaitProgress(acked);
                            e.restart(follower);
                        }
                        case 2 -> {
                            e.isolate(leader);
                            Ensembles.leaderAmong(e, others(3, leader));
                            awaitProgress(acked);
                            e.heal();
                        }
                        default -> {
                            e.isolate(follower);
                            awaitProgress(acked);
                            e.heal();
                        }
                    }
                    settledLeader(e);
                    Set<String> seen = Set.copyOf(acked);
                    for (int i = 0; i < 3; i++) {
                        Set<String> held = childrenOn(e, i, "/w");
                        assertTrue(held.containsAll(seen), "round " + round + ": server " + i + " lacks "
                                + seen.stream().filter(s -> !held.contains(s)).limit(10).toList());
                    }
                    assertNull(failed.get(), "the writer failed in round " + round);
                }
            } finally {
                stop.set(true);
                writes.join();
            }
            assertNull(failed.get());
            assertFalse(states.contains(ConnectionState.LOST), "states " + states);
            assertEquals(childrenOn(e, 0, "/w"), childrenOn(e, 1, "/w"));
            assertEquals(childrenOn(e, 1, "/w"), childrenOn(e, 2, "/w"));
            System.out.printf("RepeatedFailoverLongTest: %d rounds, %d writes acknowledged, none lost%n", ROUNDS,
                    acked.size());
        }
    }

    /** Waits until the writer got at least 20 more writes acknowledged (the ensemble commits again). */
    private static void awaitProgress(Set<String> acked) {
        int before = acked.size();
        Ensembles.await(() -> "the writer makes progress (" + acked.size() + " acked)",
                () -> acked.size() >= before + 20);
    }
}
