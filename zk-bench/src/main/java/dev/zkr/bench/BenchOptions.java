package dev.zkr.bench;

import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/** Command-line options of the runner. */
record BenchOptions(int rounds, Duration warmup, Duration measure, Set<String> only, boolean skipMillion, int millionParents,
                    int millionChildren, Path resultsDir, Path dataRoot, boolean quick, int ensemble, int kills,
                    Set<String> systems, boolean admin, int largeParents, boolean catchupSnap, int warmupRounds) {

    static final List<String> SCENARIOS = List.of(
            "create", "setdata", "notify", "getdata", "tlscreate", "tlsgetdata", "lock", "rwlock", "election", "selector", "barrier", "counter", "queue",
            "prioqueue", "semaphore", "asynclock", "cache", "discovery", "cachemem", "million", "zkclient", "watches",
            "large");

    /**
     * Scenarios that run only when asked for ({@code --only}, or {@code --large} for the big one): with
     * {@code --ensemble}, the membership rows {@code observers} and {@code catchup}.
     */
    static final List<String> ON_REQUEST = List.of("large", "observers", "catchup");

    /** The systems an ensemble run can leave out with {@code --systems}. */
    static final List<String> SYSTEMS = List.of("zkr", "zookeeper");

    /** The scenarios of an ensemble run ({@code --ensemble N}), in the order they run. */
    static final List<String> ENSEMBLE_SCENARIOS = List.of(
            "create", "setdata", "heap", "getdata", "lock", "zkclient", "kill", "sigstop", "observers", "catchup");

    static final String USAGE = """
            usage: java -jar zk-bench/target/zk-bench.jar [options]
              --quick                 ~2-minute smoke run (1 round, 1 s warm-up, 3 s windows, 100,000 instead of 1,000,000 znodes)
              --only a,b,...          run only these scenarios: %s
                                      (with --ensemble: %s;
                                      observers and catchup, the membership rows, run only when named)
              --skip-million          skip the 1,000,000-znode scenarios (heap, data dir, restart)
              --large                 also run the 10,000,000-znode tree of 10 B (servers with -Xmx8g; about an hour)
              --large-parents N       parents of that tree (default 10000; children per parent 1000)
              --rounds N              rounds per scenario; the systems take turns each round, cells are medians (default 3)
              --warmup SECONDS        warm-up per round and system (default 2)
              --warmup-rounds N       N whole rounds first (standalone: on the fresh servers; ensembles: of the load
                                      scenarios), logged and not in the cells (default 0), so that no cell holds a
                                      cold JVM's first round
              --measure SECONDS       measuring window per round and system (default 4)
              --parents N             parents of the big tree (default 1000; children per parent 1000)
              --results DIR           where latest.md and the server logs go (default zk-bench/results)
              --data DIR              where the servers keep their data (default zk-bench/target/bench-data)
              --ensemble N            instead of the standalone rows: ensembles of N servers (3 or 5) per system, each
                                      server in its own JVM; results in ensemble-latest.md
              --kills N               with --ensemble: leader kills (and SIGSTOPs) per system, gaps are medians (default 5)
              --systems a,b           with --ensemble: only these systems (zkr,zookeeper; default both), e.g. to iterate on one
              --admin                 run the zkr servers with the admin endpoint on (adminPort 0: metrics recorded),
                                      to compare with a run without it
              --catchup-snap          with --only catchup: zkr's servers snapshot every 40,000 txns and both systems take
                                      500,000 setData after the tree, so zkr's leader purges its first log segment and
                                      its joiner gets a SNAP instead of a DIFF of the whole log
            """.formatted(String.join(",", SCENARIOS), String.join(",", ENSEMBLE_SCENARIOS));

    static BenchOptions parse(String[] args, Path defaultResults, Path defaultData) {
        int rounds = 3;
        Integer roundsArg = null;
        Duration warmup = Duration.ofSeconds(2);
        Duration measure = Duration.ofSeconds(4);
        String onlyArg = null;
        int ensemble = 0;
        int kills = 5;
        Set<String> systems = new LinkedHashSet<>(SYSTEMS);
        boolean skipMillion = false;
        boolean quick = false;
        boolean admin = false;
        boolean large = false;
        int warmupRounds = 0;
        int largeParents = 10_000;
        boolean catchupSnap = false;
        Integer parents = null;
        Path results = defaultResults;
        Path data = defaultData;
        Duration warmupArg = null;
        Duration measureArg = null;
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            switch (a) {
                case "--quick" -> quick = true;
                case "--admin" -> admin = true;
                case "--skip-million" -> skipMillion = true;
                case "--large" -> large = true;
                case "--large-parents" -> largeParents = positiveInt(value(args, ++i, a), a);
                case "--only" -> onlyArg = value(args, ++i, a);
                case "--ensemble" -> {
                    ensemble = positiveInt(value(args, ++i, a), a);
                    if (ensemble != 3 && ensemble != 5) {
                        throw new IllegalArgumentException("--ensemble takes 3 or 5 servers, got " + ensemble);
                    }
                }
                case "--kills" -> kills = positiveInt(value(args, ++i, a), a);
                case "--catchup-snap" -> catchupSnap = true;
                case "--systems" -> {
                    systems = new LinkedHashSet<>();
                    for (String sys : value(args, ++i, a).split(",")) {
                        String id = sys.trim().toLowerCase(java.util.Locale.ROOT);
                        if (!SYSTEMS.contains(id)) {
                            throw new IllegalArgumentException("unknown system '" + id + "'; known: " + SYSTEMS);
                        }
                        systems.add(id);
                    }
                }
                case "--warmup" -> warmupArg = seconds(value(args, ++i, a), a);
                case "--measure" -> measureArg = seconds(value(args, ++i, a), a);
                case "--rounds" -> roundsArg = positiveInt(value(args, ++i, a), a);
                case "--warmup-rounds" -> warmupRounds = nonNegativeInt(value(args, ++i, a), a);
                case "--parents" -> parents = positiveInt(value(args, ++i, a), a);
                case "--results" -> results = Path.of(value(args, ++i, a));
                case "--data" -> data = Path.of(value(args, ++i, a));
                case "-h", "--help" -> throw new IllegalArgumentException("help");
                default -> throw new IllegalArgumentException("unknown option " + a);
            }
        }
        List<String> known = ensemble > 0 ? ENSEMBLE_SCENARIOS : SCENARIOS;
        Set<String> only = new LinkedHashSet<>(known);
        only.removeAll(ON_REQUEST);
        if (onlyArg != null) {
            only = new LinkedHashSet<>();
            for (String s : onlyArg.split(",")) {
                String id = s.trim().toLowerCase(java.util.Locale.ROOT);
                if (!known.contains(id)) {
                    throw new IllegalArgumentException("unknown scenario '" + id + "'; known"
                            + (ensemble > 0 ? " with --ensemble" : "") + ": " + known);
                }
                only.add(id);
            }
        }
        if (large && ensemble == 0) {
            only.add("large");
        }
        if (quick) {
            rounds = 1;
            warmup = Duration.ofSeconds(1);
            measure = Duration.ofSeconds(3);
        }
        if (roundsArg != null) {
            rounds = roundsArg;
        }
        if (warmupArg != null) {
            warmup = warmupArg;
        }
        if (measureArg != null) {
            measure = measureArg;
        }
        int p = parents != null ? parents : quick ? 100 : 1000;
        if (skipMillion) {
            only.remove("million");
        }
        return new BenchOptions(rounds, warmup, measure, Set.copyOf(only), skipMillion, p, 1000, results, data, quick,
                ensemble, kills, Set.copyOf(systems), admin, largeParents, catchupSnap, warmupRounds);
    }

    boolean runs(String scenario) {
        return only.contains(scenario);
    }

    private static String value(String[] args, int i, String option) {
        if (i >= args.length) {
            throw new IllegalArgumentException(option + " needs a value");
        }
        return args[i];
    }

    private static Duration seconds(String v, String option) {
        try {
            double s = Double.parseDouble(v);
            if (!(s >= 0)) {
                throw new NumberFormatException();
            }
            return Duration.ofMillis(Math.round(s * 1000));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(option + " needs a number of seconds, got '" + v + "'");
        }
    }

    private static int nonNegativeInt(String v, String option) {
        try {
            int n = Integer.parseInt(v);
            if (n < 0) {
                throw new NumberFormatException();
            }
            return n;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(option + " needs an integer of 0 or more, got '" + v + "'");
        }
    }

    private static int positiveInt(String v, String option) {
        try {
            int n = Integer.parseInt(v);
            if (n <= 0) {
                throw new NumberFormatException();
            }
            return n;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(option + " needs a positive integer, got '" + v + "'");
        }
    }
}
