package dev.zkr.testkit.soak;

import dev.zkr.client.ZkClient;
import dev.zkr.testkit.TestEnsemble;
import org.junit.jupiter.api.Test;

import java.io.PrintStream;
import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A short run of the ensemble soak in the default build (two leader kills in about 6 s), so the runner and its
 * checker are exercised on every build; then a node the soak had acknowledged is deleted behind its back and the
 * checker must report it lost on every server.
 */
class EnsembleSoakQuickTest {

    @Test
    void twoLeaderKillsLoseNothingAndTheCheckerCatchesADeletedNode() throws Exception {
        PrintStream out = System.out;
        SoakRunner.Settings quick = new SoakRunner.Settings(Duration.ofSeconds(6), 7, Duration.ofSeconds(3), 2,
                1.0, Duration.ofMillis(1500), Duration.ofMillis(2500), Duration.ofMillis(500), Duration.ofMillis(1000),
                40, out);
        try (TestEnsemble e = TestEnsemble.builder().servers(3).start()) {
            SoakRunner runner = new SoakRunner(e, quick);
            SoakRunner.Report r = runner.run();
            out.print(r.table());
            assertEquals(2, r.gaps().leaderKills(), "leader kills");
            assertTrue(r.acked() > 0, "no write was acknowledged");
            assertEquals(0, r.lost(), () -> String.join("\n", r.violations()));
            assertEquals(0, r.sessionsLost(), "sessions lost");
            assertTrue(r.violations().isEmpty(), () -> String.join("\n", r.violations()));

            String victim = runner.ledger().anyAckedNode();
            assertNotNull(victim);
            ZkClient c = e.newClient(b -> b.connectString(e.connectString()).sessionTimeout(Duration.ofSeconds(15)));
            SoakRunner.retry(() -> {
                c.delete(victim, -1);
                return null;
            });
            SoakRunner.Report after = runner.check();
            assertEquals(1, after.lost(), after::table);
            assertFalse(after.clean());
            assertEquals(3, after.violations().stream().filter(v -> v.contains(victim + " ")).count(),
                    () -> "every server reports " + victim + " missing:\n" + String.join("\n", after.violations()));
        }
    }
}
