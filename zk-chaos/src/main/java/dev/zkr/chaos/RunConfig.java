package dev.zkr.chaos;

import java.nio.file.Path;
import java.time.Duration;

/**
 * One run: the system ({@code zkr} or {@code zookeeper}), ensemble size, workload, nemesis (a kind's name or
 * {@code mix}), how long the clients run, the seed that fixes every random choice (fault schedule, targets, the
 * workers' operation mix), where the run's directory goes, and the number of client workers.
 */
public record RunConfig(String system, int servers, String workload, String nemesis, Duration time, long seed,
                        Path out, int workers) {

    public RunConfig {
        if (!system.equals("zkr") && !system.equals("zookeeper")) {
            throw new IllegalArgumentException("--system must be zkr or zookeeper, not '" + system + "'");
        }
        if (servers != 3 && servers != 5) {
            throw new IllegalArgumentException("--servers must be 3 or 5");
        }
        if (workers < 1) {
            throw new IllegalArgumentException("--workers must be at least 1");
        }
    }

    /** The command line that repeats this run. */
    public String commandLine() {
        return "java -jar zk-chaos/target/zk-chaos.jar --system " + system + " --servers " + servers + " --workload "
                + workload + " --nemesis " + nemesis + " --time " + time.toSeconds() + "s --seed " + seed
                + " --workers " + workers;
    }

    /** The run's directory name. */
    public String label() {
        return system + "-" + workload + "-" + nemesis + "-n" + servers + "-seed" + seed;
    }
}
