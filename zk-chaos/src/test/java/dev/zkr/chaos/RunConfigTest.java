package dev.zkr.chaos;

import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** Run settings refused before any server starts. (Every workload runs for real in {@link ShortRunsTest}.) */
class RunConfigTest {

    @Test
    void curatorWorkloadsAreRefusedOnZkr() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new RunConfig("zkr", 3,
                "curator-queue", "none", Duration.ofSeconds(8), 1, Path.of("target"), 4));
        assertEquals("--workload curator-queue runs Curator's recipe, a ZooKeeper client: it needs --system "
                + "zookeeper", e.getMessage());
    }

    @Test
    void onlyThreeOrFiveServers() {
        assertThrows(IllegalArgumentException.class, () -> new RunConfig("zkr", 4, "register", "none",
                Duration.ofSeconds(8), 1, Path.of("target"), 4));
    }

    @Test
    void bothSystemsMixTheWorkloadsBothRunAndACuratorWorkloadIsRefusedForTheirList() {
        java.util.List<String> both = ChaosMain.mixable(java.util.List.of("zkr", "zookeeper"));
        assertEquals(dev.zkr.chaos.workload.Workloads.names("zkr"), both);
        assertEquals(java.util.List.of("zkr", "zookeeper"), ChaosMain.Options.parse("--system", "zkr,zookeeper",
                "--workload", "mix").systems());
        assertThrows(IllegalArgumentException.class, () -> ChaosMain.Options.parse("--system", "zkr,zookeeper",
                "--workload", "curator-lock"));
    }
}
