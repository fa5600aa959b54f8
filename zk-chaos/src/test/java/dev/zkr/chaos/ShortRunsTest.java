package dev.zkr.chaos;

import dev.zkr.chaos.report.RunReport;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * One short zkr run per workload (3 server JVMs behind proxies, a fault in the middle): the harness works end to end
 * and zkr shows no anomaly. The long series runs with {@code -Pchaos} (see the module README).
 */
class ShortRunsTest {

    @TempDir
    Path out;

    @ParameterizedTest(name = "{0} under {1}")
    @CsvSource({
            "register, kill-leader",
            "set, partition-leader",
            "sequential, pause-leader",
    })
    void zkrRunIsValid(String workload, String nemesis) throws Exception {
        RunConfig c = new RunConfig("zkr", 3, workload, nemesis, Duration.ofSeconds(8), 42, out, 4);
        RunReport r = new ChaosRun(c).run();
        assertTrue(r.valid(), () -> r.summary() + "\n" + String.join("\n", r.anomalies()));
        assertTrue(r.faultsInjected() >= 1, () -> "no fault injected: " + r.summary() + " " + r.notes());
        assertTrue(r.opsChecked() > 100, r::summary);
        for (String file : new String[] {"history.jsonl", "faults.jsonl", "anomalies.txt", "timeline.svg",
                "summary.txt"}) {
            assertTrue(Files.size(r.dir().resolve(file)) > 0, file);
        }
    }
}
