package dev.zkr.samples.mapreduce;

import java.time.Duration;

/**
 * The MapReduce-phase coordinator sample: a word count run by workers and master candidates on a zkr ensemble
 * of 3 servers embedded in this JVM (or on external zkr / Apache ZooKeeper servers), with optional worker, master
 * and server kills. Prints the phases as they finish, the timeline, and a verdict; exits with 1 if the result is wrong.
 */
public final class MapReduceMain {

    private MapReduceMain() {
    }

    public static void main(String[] args) {
        if (System.getProperty("org.slf4j.simpleLogger.defaultLogLevel") == null) {
            System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "error");
        }
        JobOptions options;
        try {
            options = JobOptions.parse(args);
        } catch (IllegalArgumentException e) {
            if (args.length > 0 && !args[0].equals("--help") && !args[0].equals("-h")) {
                System.err.println("error: " + e.getMessage());
            }
            System.err.print(JobOptions.USAGE);
            System.exit(2);
            return;
        }
        System.out.printf("zkr MapReduce sample: word count of %.1f MiB of generated text (seed %d)%s%n",
                options.inputBytes() / 1048576.0, options.seed(), faultsText(options));
        JobResult result;
        try (Cluster cluster = options.connect() == null ? Cluster.embedded()
                : Cluster.external(options.connect(), options.apache(), Duration.ofSeconds(4))) {
            result = MapReduceJob.run(options, cluster, System.out);
        }
        if (options.killWorker() == null && options.killMaster() == null && options.killServer() == null) {
            System.out.println("(now try it with faults: --kill-worker map|barrier|shuffle|reduce --kill-master"
                    + " --kill-server leader|follower)");
        }
        System.exit(result.correct() ? 0 : 1);
    }

    private static String faultsText(JobOptions o) {
        StringBuilder b = new StringBuilder();
        if (o.killWorker() != null) {
            b.append(", killing a worker ").append(o.killWorker() == KillPoint.BARRIER ? "at the shuffle barrier"
                    : "in " + o.killWorker().label());
        }
        if (o.killMaster() != null) {
            b.append(", killing the master in ").append(o.killMaster().label());
        }
        if (o.killServer() != null) {
            b.append(", killing the ").append(o.killServer().role().label()).append(" server in ")
                    .append(o.killServer().phase().label());
        }
        return b.toString();
    }
}
