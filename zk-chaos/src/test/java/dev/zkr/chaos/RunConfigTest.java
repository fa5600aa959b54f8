package dev.zkr.chaos;

import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Run settings refused before any server starts. (Every workload runs for real in {@link ShortRunsTest}.) */
class RunConfigTest {

    @Test
    void curatorWorkloadsRunOnZkrWhenNamedButMixLeavesThemOut() {
        assertEquals("curator-queue", new RunConfig("zkr", 3, "curator-queue", "none", Duration.ofSeconds(8), 1,
                Path.of("target"), 4).workload());
        assertEquals(java.util.List.of("zkr", "zookeeper"), ChaosMain.Options.parse("--system", "zkr,zookeeper",
                "--workload", "curator-lock").systems());
        assertTrue(dev.zkr.chaos.workload.Workloads.names("zkr").stream().noneMatch(n -> n.startsWith("curator-")));
        assertTrue(dev.zkr.chaos.workload.Workloads.names("zookeeper").contains("curator-lock"));
    }

    @Test
    void onlyThreeOrFiveServers() {
        assertThrows(IllegalArgumentException.class, () -> new RunConfig("zkr", 4, "register", "none",
                Duration.ofSeconds(8), 1, Path.of("target"), 4));
    }

    @Test
    void bothSystemsMixTheWorkloadsMixDrawsFromOnBoth() {
        java.util.List<String> both = ChaosMain.mixable(java.util.List.of("zkr", "zookeeper"));
        assertEquals(dev.zkr.chaos.workload.Workloads.names("zkr"), both);
        assertEquals(java.util.List.of("zkr", "zookeeper"), ChaosMain.Options.parse("--system", "zkr,zookeeper",
                "--workload", "mix").systems());
    }
}
