package dev.zkr.samples.mapreduce;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;

/**
 * What to run: the input (seed and size), the shape of the job (map tasks, reducers, workers, master candidates),
 * the faults to inject, and where the servers are.
 *
 * @param seed        seed of the generated text
 * @param inputBytes  size of the generated text
 * @param mapTasks    number of input splits (map tasks)
 * @param reducers    number of reducer partitions (shuffle and reduce tasks)
 * @param workers     number of workers
 * @param masters     number of master candidates
 * @param killWorker  where to kill a worker, or null
 * @param killMaster  the phase in the middle of which to kill the master, or null
 * @param killServer  which server of the embedded ensemble to kill and in which phase, or null
 * @param connect     external servers ({@code host:port,...}), or null for an embedded ensemble
 * @param apache      the external servers are Apache ZooKeeper
 * @param root        the job's root znode
 * @param timeout     how long the whole job may take
 * @param outputDir   the job's output directory (part files and manifest), or null for a fresh temporary one
 */
public record JobOptions(long seed, int inputBytes, int mapTasks, int reducers, int workers, int masters,
                         KillPoint killWorker, Phase killMaster, ServerKill killServer, String connect,
                         boolean apache, String root, Duration timeout, Path outputDir) {

    public JobOptions {
        positive(inputBytes, "input size");
        positive(mapTasks, "map tasks");
        positive(reducers, "reducers");
        positive(workers, "workers");
        positive(masters, "masters");
        Objects.requireNonNull(root, "root");
        Objects.requireNonNull(timeout, "timeout");
        if (killMaster != null && !killMaster.hasTasks()) {
            throw new IllegalArgumentException("--kill-master takes map, shuffle or reduce");
        }
        if (killMaster != null && masters < 2) {
            throw new IllegalArgumentException("--kill-master needs at least 2 master candidates");
        }
        if (killWorker != null && workers < 2) {
            throw new IllegalArgumentException("--kill-worker needs at least 2 workers");
        }
        if (killServer != null && connect != null) {
            throw new IllegalArgumentException("--kill-server needs the embedded ensemble (not --connect)");
        }
        if (apache && connect == null) {
            throw new IllegalArgumentException("--apache needs --connect host:port,...");
        }
    }

    /**
     * 4 MiB of text from seed 42, 32 map tasks, 4 reducers, 4 workers, 2 master candidates, no faults, give up after
     * 180 s (a bound for a loaded machine: a run takes seconds on a quiet one).
     */
    public static JobOptions defaults() {
        return new JobOptions(42, 4 << 20, 32, 4, 4, 2, null, null, null, null, false, "/mapreduce",
                Duration.ofSeconds(180), null);
    }

    public JobOptions withKillWorker(KillPoint point) {
        return new JobOptions(seed, inputBytes, mapTasks, reducers, workers, masters, point, killMaster, killServer,
                connect, apache, root, timeout, outputDir);
    }

    public JobOptions withKillMaster(Phase phase) {
        return new JobOptions(seed, inputBytes, mapTasks, reducers, workers, masters, killWorker, phase, killServer,
                connect, apache, root, timeout, outputDir);
    }

    public JobOptions withKillServer(ServerKill kill) {
        return new JobOptions(seed, inputBytes, mapTasks, reducers, workers, masters, killWorker, killMaster, kill,
                connect, apache, root, timeout, outputDir);
    }

    public JobOptions withSize(long seed, int inputBytes, int mapTasks) {
        return new JobOptions(seed, inputBytes, mapTasks, reducers, workers, masters, killWorker, killMaster,
                killServer, connect, apache, root, timeout, outputDir);
    }

    /** The same job, writing its part files and manifest into {@code dir} (null: a fresh temporary directory). */
    public JobOptions withOutputDir(Path dir) {
        return new JobOptions(seed, inputBytes, mapTasks, reducers, workers, masters, killWorker, killMaster,
                killServer, connect, apache, root, timeout, dir);
    }

    private static void positive(int n, String what) {
        if (n < 1) {
            throw new IllegalArgumentException(what + " must be at least 1: " + n);
        }
    }

    static final String USAGE = """
            usage: java -jar samples/target/zkr-samples.jar [options]
              --seed N              seed of the generated text (default 42)
              --mb N                size of the generated text in MiB (default 4)
              --maps N              map tasks / input splits (default 32)
              --reducers N          reducer partitions (default 4)
              --workers N           workers (default 4)
              --masters N           master candidates (default 2)
              --kill-worker WHERE   kill a worker: map | barrier | shuffle | reduce
              --kill-master [PHASE] kill the master in the middle of map (default) | shuffle | reduce
              --kill-server ROLE [PHASE]
                                    kill the embedded ensemble's leader | follower in the middle of map
                                    (default) | shuffle | reduce, and restart it once writes resumed
              --connect HOSTS       run against external servers host:port,... (default: embedded ensemble)
              --apache              the external servers are Apache ZooKeeper (through ApacheZkClient)
              --root PATH           the job's root znode (default /mapreduce; deleted at the start)
              --timeout SECONDS     give up after this long (default 180)
              --out DIR             the job's output directory: part files and _MANIFEST (default: a fresh
                                    temporary directory; its part files and manifest are deleted at the start)
            """;

    /** Parses the command line; IllegalArgumentException with a clear message on bad input. */
    public static JobOptions parse(String[] args) {
        JobOptions o = defaults();
        long seed = o.seed;
        int bytes = o.inputBytes;
        int maps = o.mapTasks;
        int reducers = o.reducers;
        int workers = o.workers;
        int masters = o.masters;
        KillPoint killWorker = null;
        Phase killMaster = null;
        ServerKill killServer = null;
        String connect = null;
        boolean apache = false;
        String root = o.root;
        Duration timeout = o.timeout;
        Path out = null;
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            boolean hasValue = i + 1 < args.length && !args[i + 1].startsWith("--");
            switch (a) {
                case "--seed" -> seed = Long.parseLong(value(args, ++i, a));
                case "--mb" -> bytes = (int) Math.round(Double.parseDouble(value(args, ++i, a)) * 1048576);
                case "--maps" -> maps = Integer.parseInt(value(args, ++i, a));
                case "--reducers" -> reducers = Integer.parseInt(value(args, ++i, a));
                case "--workers" -> workers = Integer.parseInt(value(args, ++i, a));
                case "--masters" -> masters = Integer.parseInt(value(args, ++i, a));
                case "--kill-worker" -> killWorker = KillPoint.parse(value(args, ++i, a));
                case "--kill-master" -> killMaster = hasValue ? Phase.parse(args[++i]) : Phase.MAP;
                case "--kill-server" -> {
                    ServerKill.Role role = ServerKill.Role.parse(value(args, ++i, a));
                    boolean hasPhase = i + 1 < args.length && !args[i + 1].startsWith("--");
                    killServer = new ServerKill(role, hasPhase ? Phase.parse(args[++i]) : Phase.MAP);
                }
                case "--connect" -> connect = value(args, ++i, a);
                case "--apache" -> apache = true;
                case "--root" -> root = value(args, ++i, a);
                case "--timeout" -> timeout = Duration.ofSeconds(Long.parseLong(value(args, ++i, a)));
                case "--out" -> out = Path.of(value(args, ++i, a));
                default -> throw new IllegalArgumentException("unknown option: " + a);
            }
        }
        return new JobOptions(seed, bytes, maps, reducers, workers, masters, killWorker, killMaster, killServer,
                connect, apache, root, timeout, out);
    }

    private static String value(String[] args, int i, String option) {
        if (i >= args.length) {
            throw new IllegalArgumentException(option + " needs a value");
        }
        return args[i];
    }
}
