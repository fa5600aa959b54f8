package dev.zkr.testkit.ensemble;

import dev.zkr.client.CreateMode;
import dev.zkr.client.ZkClient;
import dev.zkr.testkit.TestEnsemble;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

/** A 3-server ensemble on loopback: one leader, writes through every server, reads everywhere, leader failover. */
class EnsembleBasicsTest {

    @Test
    void writesThroughEveryServerAreSeenByAll() throws Exception {
        try (TestEnsemble e = TestEnsemble.builder().servers(3).start()) {
            int leader = e.leader();
            for (int i = 0; i < 3; i++) {
                try (ZkClient c = ZkClient.builder().connectString(e.connectString(i))
                        .sessionTimeout(Duration.ofSeconds(5)).connectTimeout(Duration.ofSeconds(10)).build()) {
                    c.create("/from-" + i, new byte[] {(byte) i}, CreateMode.PERSISTENT);
                    c.setData("/from-" + i, new byte[] {(byte) (10 + i)}, 0);
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
            c.create("/before", new byte[] {1}, CreateMode.PERSISTENT);
            e.kill(leader);
            c.create("/after", new byte[] {2}, CreateMode.PERSISTENT);
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
