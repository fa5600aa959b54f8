package dev.zkr.testkit.ensemble;

import dev.zkr.client.ConnectionState;
import dev.zkr.client.CreateMode;
import dev.zkr.client.Stat;
import dev.zkr.client.WatchedEvent;
import dev.zkr.client.ZkClient;
import dev.zkr.testkit.TestEnsemble;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

import static dev.zkr.testkit.ensemble.Ensembles.clientCreatedOn;
import static dev.zkr.testkit.ensemble.Ensembles.clientOf;
import static dev.zkr.testkit.ensemble.Ensembles.get;
import static dev.zkr.testkit.ensemble.Ensembles.others;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;

/**
 * A client whose server is killed reconnects to another server within its session timeout and keeps its session:
 * it reports SUSPENDED then RECONNECTED (never LOST), its ephemeral node survives, and its data and child watches
 * deliver the changes another client made while it was away. Both for a client of the leader and of a follower.
 */
@Timeout(120)
class SessionFailoverTest {

    @Test
    void aClientOfTheKilledLeaderKeepsItsSessionEphemeralsAndWatches() throws Exception {
        try (TestEnsemble e = TestEnsemble.builder().servers(3).start()) {
            failOver(e, e.leader());
        }
    }

    @Test
    void aClientOfAKilledFollowerKeepsItsSessionEphemeralsAndWatches() throws Exception {
        try (TestEnsemble e = TestEnsemble.builder().servers(3).start()) {
            failOver(e, others(3, e.leader())[0]);
        }
    }

    private static void failOver(TestEnsemble e, int victim) throws Exception {
        ZkClient c = clientCreatedOn(e, Duration.ofSeconds(5), victim);
        long session = c.sessionId();
        Ensembles.States states = Ensembles.States.of(c);
        c.create("/watched", new byte[] {0}, CreateMode.PERSISTENT);
        c.create("/dir", new byte[0], CreateMode.PERSISTENT);
        c.create("/eph", new byte[0], CreateMode.EPHEMERAL);
        CompletableFuture<WatchedEvent> dataChanged = new CompletableFuture<>();
        CompletableFuture<WatchedEvent> childAdded = new CompletableFuture<>();
        c.getData("/watched", dataChanged::complete);
        c.getChildren("/dir", childAdded::complete);

        ZkClient other = clientOf(e, others(3, victim));
        e.kill(victim);
        Ensembles.createRetrying(other, "/dir/child", new byte[0]);
        Ensembles.setRetrying(other, "/watched", new byte[] {1});

        assertEquals(new WatchedEvent(WatchedEvent.Type.NODE_DATA_CHANGED, "/watched",
                get(dataChanged).zxid()), get(dataChanged));
        assertEquals(WatchedEvent.Type.NODE_CHILDREN_CHANGED, get(childAdded).type());
        states.awaitState(ConnectionState.RECONNECTED);
        assertEquals(session, c.sessionId(), "the client got a new session");
        Stat eph = c.exists("/eph");
        assertNotNull(eph, "the ephemeral of the moved session is gone");
        assertEquals(session, eph.ephemeralOwner());
        assertNotNull(other.exists("/eph"), "another client does not see the moved session's ephemeral");
        assertEquals(ConnectionState.SUSPENDED, states.seen.get(0), "states " + states);
        assertFalse(states.contains(ConnectionState.LOST), "states " + states);
        c.setData("/watched", new byte[] {2}, -1); // the session writes through its new server
    }
}
