package dev.zkr.testkit.ensemble;

import dev.zkr.client.ConnectionState;
import dev.zkr.client.CreateMode;
import dev.zkr.client.NodeData;
import dev.zkr.client.Stat;
import dev.zkr.client.ZkClient;
import dev.zkr.testkit.TestEnsemble;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

import static dev.zkr.testkit.ensemble.Ensembles.clientCreatedOn;
import static dev.zkr.testkit.ensemble.Ensembles.createAll;
import static dev.zkr.testkit.ensemble.Ensembles.get;
import static dev.zkr.testkit.ensemble.Ensembles.others;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A client that saw zxid z moves to a server that has not applied z (it was partitioned while the client wrote a
 * large backlog through its first server, which is then killed; the partition heals as the client moves). The
 * lagging server holds the re-attach until it applied z (or refuses it with a retryable code): the client's read
 * returns the value it wrote, never an older one, and its session is kept (never SESSION_EXPIRED, never LOST).
 */
@Timeout(120)
class ReadsNeverGoBackTest {

    private static final int BACKLOG = 500;

    @Test
    void aClientMovingToALaggingServerIsNeverServedOlderData() throws Exception {
        try (TestEnsemble e = TestEnsemble.builder().servers(5).start()) {
            int[] followers = others(5, e.leader());
            int first = followers[0];
            int lagging = followers[1];
            ZkClient c = clientCreatedOn(e, Duration.ofSeconds(10), first, first, lagging);
            long session = c.sessionId();
            Ensembles.States states = Ensembles.States.of(c);
            c.create("/k", new byte[] {0}, CreateMode.PERSISTENT);

            e.isolate(lagging);
            createAll(c, "/k/n-", 0, BACKLOG);
            Stat written = c.setData("/k", new byte[] {1}, -1);
            assertTrue(e.server(lagging).lastZxid() < written.mzxid(), "the partitioned server is not behind");

            e.kill(first);
            CompletableFuture<NodeData> read = c.getDataAsync("/k", null);
            e.heal();

            NodeData seen = get(read);
            assertArrayEquals(new byte[] {1}, seen.data(), "the client read an older value after moving");
            assertTrue(seen.stat().mzxid() >= written.mzxid());
            assertEquals(BACKLOG, c.getChildren("/k").size());
            states.awaitState(ConnectionState.RECONNECTED);
            assertEquals(session, c.sessionId());
            assertFalse(states.contains(ConnectionState.LOST), "states " + states);
        }
    }
}
