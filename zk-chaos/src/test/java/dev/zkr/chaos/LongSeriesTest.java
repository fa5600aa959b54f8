package dev.zkr.chaos;

import dev.zkr.chaos.report.RunReport;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The long series, run by {@code mvn -B -Pchaos -pl zk-chaos -am verify}: {@code zkr.chaos.runs} seeded runs per
 * system (default 100) of {@code zkr.chaos.time} each (default 60s), workload and nemesis mixed, seeds from
 * {@code zkr.chaos.seed} (default 1), systems from {@code zkr.chaos.systems} (default zkr,zookeeper: each seed
 * runs on both in turn, same workload drawn among those both run). Prints each
 * system's table and writes it under {@code target/chaos}. Fails if a zkr run found an anomaly; ZooKeeper's
 * anomalies are reported as measured.
 */
class LongSeriesTest {

    @Test
    void series() throws Exception {
        assumeTrue(Boolean.getBoolean("zkr.chaos.long"), "the long series runs with -Pchaos");
        int runs = Integer.getInteger("zkr.chaos.runs", 100);
        String time = System.getProperty("zkr.chaos.time", "60s");
        String seed = System.getProperty("zkr.chaos.seed", "1");
        String servers = System.getProperty("zkr.chaos.servers", "3");
        List<String> failures = new ArrayList<>();
        String systems = System.getProperty("zkr.chaos.systems", "zkr,zookeeper");
        ChaosMain.Options o = ChaosMain.Options.parse("--system", systems, "--servers", servers, "--workload", "mix",
                "--nemesis", "mix", "--time", time, "--seed", seed, "--repeat", Integer.toString(runs),
                "--out", Path.of("target", "chaos").toString());
        for (RunReport r : ChaosMain.runSeries(o)) {
            if (r.config().system().equals("zkr") && !r.valid()) {
                failures.add(r.summary() + ": " + r.anomalies());
            }
        }
        assertTrue(failures.isEmpty(), () -> String.join("\n", failures));
    }
}
