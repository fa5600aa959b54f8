package dev.zkr.testkit.ensemble;

import dev.zkr.client.ClientSupport;
import dev.zkr.client.ConnectionState;
import dev.zkr.client.CreateMode;
import dev.zkr.client.Created;
import dev.zkr.client.ZkClient;
import dev.zkr.client.ZkException;
import dev.zkr.testkit.TestEnsemble;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

import static dev.zkr.testkit.ensemble.Ensembles.childrenOn;
import static dev.zkr.testkit.ensemble.Ensembles.clientOf;
import static dev.zkr.testkit.ensemble.Ensembles.get;
import static dev.zkr.testkit.ensemble.Ensembles.leaderAmong;
import static dev.zkr.testkit.ensemble.Ensembles.others;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * One session pipelines writes through a follower and the leader is killed while they are in flight (more are sent
 * while the follower has no leader): they are answered in the session's order (xid order), and every one is answered
 * OK and applied once — the follower closes the connection of a write the leader change left undecided, and the
 * client sends it and the later ones again with their xids on its next connection (exactly-once,
 * docs/exactly-once.md). The session is never lost.
 */
@Timeout(120)
class ForwardedWritesFifoTest {

    private static final int WRITES = 400;
    private static final int KILL_AT = 200;

    @Test
    void forwardedWritesAreAnsweredInOrderAcrossALeaderChange() throws Exception {
        try (TestEnsemble e = TestEnsemble.builder().servers(3).start()) {
            int leader = e.leader();
            int[] followers = others(3, leader);
            ZkClient c = clientOf(e, followers[0]);
            Ensembles.States states = Ensembles.States.of(c);
            c.create("/fifo", new byte[0], CreateMode.PERSISTENT);

            List<Integer> answerOrder = java.util.Collections.synchronizedList(new ArrayList<>());
            List<CompletableFuture<Created>> writes = new ArrayList<>();
            int killed = -1;
            for (int i = 0; i < WRITES; i++) {
                int n = i;
                CompletableFuture<Created> f = c.createAsync(String.format("/fifo/w-%04d", i), new byte[] {(byte) i},
                        CreateMode.PERSISTENT);
                f.whenComplete((v, err) -> answerOrder.add(n));
                writes.add(f);
                if (i == KILL_AT) {
                    // the writes just sent are in flight; the ones sent next reach a follower without a leader.
                    // (A loaded machine may have changed the leader already: kill whichever server leads now.)
                    killed = e.leader();
                    Assumptions.assumeTrue(killed != followers[0], "the client's own server became the leader");
                    e.kill(killed);
                }
            }
            int current = killed;
            Set<String> ok = new TreeSet<>();
            int lost = 0;
            for (int i = 0; i < WRITES; i++) {
                try {
                    get(writes.get(i));
                    ok.add(String.format("w-%04d", i));
                } catch (ExecutionException ex) {
                    throw new AssertionError("write " + i + " failed with " + ClientSupport.unwrap(ex.getCause()), ex);
                }
            }
            List<Integer> expected = new ArrayList<>();
            for (int i = 0; i < WRITES; i++) {
                expected.add(i);
            }
            assertEquals(expected, new ArrayList<>(answerOrder), "answers out of the session's order");

            leaderAmong(e, others(3, current));
            Set<String> present = childrenOn(e, followers[0], "/fifo");
            assertEquals(ok, present, "the writes answered OK against the nodes");
            assertEquals(WRITES, ok.size());
            assertFalse(states.contains(ConnectionState.LOST), "the session was lost: " + states);
            System.out.printf("ForwardedWritesFifoTest: %d OK, %d CONNECTION_LOSS, %d present%n", ok.size(), lost,
                    present.size());
        }
    }
}
