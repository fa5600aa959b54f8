package dev.zkr.chaos;

import dev.zkr.chaos.history.Op;
import dev.zkr.chaos.report.RunReport;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * One short zkr run per recipe workload (3 server JVMs behind proxies, a fault in the middle): the recipe loops
 * work end to end (leases taken and handed over, leaders elected again and again), the report carries the facts,
 * and zkr's recipes show no anomaly.
 */
class RecipeRunsTest {

    @TempDir
    Path out;

    @ParameterizedTest(name = "{0} under {1}")
    @CsvSource({
            "lock, kill-leader, acquire",
            "rwlock, partition-leader, acquire",
            "latch, pause-leader, elected",
    })
    void zkrRunIsValid(String workload, String nemesis, String progress) throws Exception {
        RunConfig c = new RunConfig("zkr", 3, workload, nemesis, Duration.ofSeconds(8), 42, out, 4);
        RunReport r = new ChaosRun(c).run();
        assertTrue(r.valid(), () -> r.summary() + "\n" + String.join("\n", r.anomalies()));
        assertTrue(r.faultsInjected() >= 1, () -> "no fault injected: " + r.summary() + " " + r.notes());
        long taken = Files.readAllLines(r.dir().resolve("history.jsonl")).stream()
                .filter(l -> l.contains("\"f\":\"" + progress + "\"") && l.contains("\"status\":\"" + Op.Status.OK))
                .count();
        assertTrue(taken >= 1, () -> "only " + taken + " " + progress + ": " + r.summary());
        String summary = Files.readString(r.dir().resolve("summary.txt"));
        assertTrue(summary.contains("facts:") && summary.contains("fenced writes:"), summary);
    }
}
