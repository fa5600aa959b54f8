package dev.zkr.chaos;

import dev.zkr.chaos.report.RunReport;
import dev.zkr.chaos.workload.Workloads;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The build's chaos runs: every zkr workload side by side ({@code all}) on 3 server JVMs behind proxies, for 24 s
 * under the mixed nemesis (seed 1: a leader killed, then a member replaced), must be valid, and the run's directory
 * must hold its report; members replaced under a
 * register workload for 12 s. The long series runs with
 * {@code -Pchaos} ({@link LongSeriesTest}).
 */
class ShortRunsTest {

    @TempDir
    Path out;

    @Test
    void everyWorkloadSideBySideUnderMixedFaultsIsValid() throws Exception {
        RunConfig c = new RunConfig("zkr", 3, Workloads.ALL_NAME, "mix", Duration.ofSeconds(24), 1, out, 2);
        RunReport r = new ChaosRun(c).run();
        System.out.println(r.summary());
        r.faults().forEach(f -> System.out.println("  fault " + f.kind() + ": " + f.description()));
        r.facts().forEach(f -> System.out.println("  " + f));
        assertTrue(r.valid(), () -> r.summary() + "\n" + String.join("\n", r.anomalies()));
        assertTrue(r.faultsInjected() >= 2, () -> "fewer than 2 faults: " + r.summary() + " " + r.notes());
        assertTrue(r.opsChecked() > 500, r::summary);
        for (String file : new String[] {"history.jsonl", "faults.jsonl", "anomalies.txt", "timeline.svg",
                "summary.txt"}) {
            assertTrue(Files.size(r.dir().resolve(file)) > 0, file);
        }
    }

    /**
     * Members replaced while clients write and read one key: the register's history stays linearizable, and at
     * least one replacement went through (a fresh server made a voter, the old one removed and stopped).
     */
    @Test
    void replacingMembersUnderLoadKeepsTheRegisterLinearizable() throws Exception {
        RunConfig c = new RunConfig("zkr", 3, "register", "replace-member", Duration.ofSeconds(12), 3, out, 3);
        RunReport r = new ChaosRun(c).run();
        System.out.println(r.summary());
        r.faults().forEach(f -> System.out.println("  fault " + f.kind() + ": " + f.description()));
        assertTrue(r.valid(), () -> r.summary() + "\n" + String.join("\n", r.anomalies()));
        assertTrue(r.faults().stream().anyMatch(f -> f.description().contains("a voter after")
                        && f.description().contains("removed after")),
                () -> "no member replaced: " + r.faults() + " " + r.notes());
        assertTrue(r.opsChecked() > 200, r::summary);
    }
}
