package dev.zkr.chaos;

import dev.zkr.chaos.report.RunReport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * One short zkr run per stateful workload (sessions, queue, counter), as {@link ShortRunsTest}: 3 server JVMs
 * behind proxies, the leader partitioned in the middle, every check passing, the workload's facts in the summary.
 */
class StateRunsTest {

    @TempDir
    Path out;

    @ParameterizedTest(name = "{0} under {1}")
    @CsvSource({
            "sessions, partition-leader",
            "queue, partition-leader",
            "counter, partition-leader",
    })
    void zkrRunIsValid(String workload, String nemesis) throws Exception {
        RunConfig c = new RunConfig("zkr", 3, workload, nemesis, Duration.ofSeconds(8), 42, out, 4);
        RunReport r = new ChaosRun(c).run();
        assertTrue(r.valid(), () -> r.summary() + "\n" + String.join("\n", r.anomalies()));
        assertTrue(r.faultsInjected() >= 1, () -> "no fault injected: " + r.summary() + " " + r.notes());
        assertTrue(r.opsChecked() > 100, r::summary);
        assertFalse(r.facts().isEmpty(), r::summary);
        assertTrue(Files.readString(r.dir().resolve("summary.txt")).contains(r.facts().get(0)));
    }

    @Test
    void curatorWorkloadsAreRefusedOnZkr() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new RunConfig("zkr", 3,
                "curator-queue", "none", Duration.ofSeconds(8), 1, out, 4));
        assertEquals("--workload curator-queue runs Curator's recipe, a ZooKeeper client: it needs --system "
                + "zookeeper", e.getMessage());
    }
}
