package dev.zkr.testkit.ensemble;

import dev.zkr.client.CreateMode;
import dev.zkr.client.ZkClient;
import dev.zkr.client.ZkException;
import dev.zkr.testkit.TestEnsemble;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

/**
 * A 3-server ensemble on loopback: one leader, writes through every server, reads everywhere, leader failover. A
 * write answered CONNECTION_LOSS (the leader changed before deciding it: it may or may not have happened) is
 * retried, as every client of ZooKeeper must.
 */
class EnsembleBasicsTest {

    interface Op {
        Object run() throws Exception;
    }

    static void retry(Op op) throws Exception {
        for (int attempt = 1; ; attempt++) {
            try {
                op.run();
                return;
            } catch (ZkException.ConnectionLoss e) {
                if (attempt == 20) {
                    throw e;
                }
            }
        }
    }

    static String createIfAbsent(ZkClient c, String path) throws Exception {
        try {
            c.create(path, new byte[0], CreateMode.PERSISTENT);
        } catch (ZkException.NodeExists e) {
            // an earlier attempt that was answered CONNECTION_LOSS did happen
        }
        return path;
    }

    @Test
    void writesThroughEveryServerAreSeenByAll() throws Exception {
        try (TestEnsemble e = TestEnsemble.builder().servers(3).start()) {
            int leader = e.leader();
            for (int i = 0; i < 3; i++) {
                try (ZkClient c = ZkClient.builder().connectString(e.connectString(i))
                        .sessionTimeout(Duration.ofSeconds(5)).connectTimeout(Duration.ofSeconds(10)).build()) {
                    String path = "/from-" + i;
                    byte[] data = {(byte) (10 + i)};
                    retry(() -> createIfAbsent(c, path));
                    retry(() -> c.setData(path, data, -1));
                    assertArrayEquals(new byte[] {(byte) (10 + i)}, c.getData("/from-" + i).data());
                }
            }
            for (int i = 0; i < 3; i++) {
                try (ZkClient c = ZkClient.builder().connectString(e.connectString(i))
                        .sessionTimeout(Duration.ofSeconds(5)).connectTimeout(Duration.ofSeconds(10)).build()) {
                    c.sync("/");
                    for (int j = 0; j < 3; j++) {
                        assertArrayEquals(new byte[] {(byte) (10 + j)}, c.getData("/from-" + j).data(),
                                "server " + i + " reading /from-" + j + " (leader " + leader + ")");
                    }
                }
            }
        }
    }

    @Test
    void writesResumeAfterTheLeaderIsKilled() throws Exception {
        try (TestEnsemble e = TestEnsemble.builder().servers(3).start()) {
            int leader = e.leader();
            int follower = (leader + 1) % 3;
            ZkClient c = e.newClient(b -> b.connectString(e.connectString(follower)));
            retry(() -> c.setData(createIfAbsent(c, "/before"), new byte[] {1}, -1));
            e.kill(leader);
            retry(() -> c.setData(createIfAbsent(c, "/after"), new byte[] {2}, -1));
            int next = e.leader();
            assertNotEquals(leader, next);
            e.restart(leader);
            try (ZkClient old = ZkClient.builder().connectString(e.connectString(leader))
                    .sessionTimeout(Duration.ofSeconds(5)).connectTimeout(Duration.ofSeconds(10)).build()) {
                old.sync("/");
                assertArrayEquals(new byte[] {1}, old.getData("/before").data());
                assertArrayEquals(new byte[] {2}, old.getData("/after").data());
            }
            assertEquals(3, e.size());
        }
    }
}
