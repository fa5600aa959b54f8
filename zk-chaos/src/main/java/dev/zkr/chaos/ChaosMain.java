package dev.zkr.chaos;

import dev.zkr.chaos.report.RunReport;
import dev.zkr.chaos.report.RunRow;
import dev.zkr.chaos.report.SeriesTable;
import dev.zkr.chaos.workload.Workloads;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

/**
 * {@code java -jar zk-chaos/target/zk-chaos.jar --system zkr|zookeeper|zkr,zookeeper --servers 3|5 --workload
 * NAME|mix --nemesis KIND|mix --time 60s --seed N [--repeat N] [--workers N] [--out DIR]}: one run, or
 * {@code --repeat N} runs with seeds {@code N, N+1, ...} (with {@code --workload mix} each run's workload is drawn
 * from its seed among the workloads every listed system runs), then per system a table of runs, operations
 * checked, faults injected and anomalies, and the write gaps per fault kind. Exit code
 * 0 when every run is valid, 1 when any found an anomaly, 2 on bad arguments.
 */
public final class ChaosMain {

    private ChaosMain() {
    }

    public static void main(String[] args) throws Exception {
        // the clients' reconnect lines would drown the summary; the servers log to their own files
        System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
        System.setProperty("org.slf4j.simpleLogger.log.org.apache.zookeeper", "error");
        System.setProperty("org.slf4j.simpleLogger.log.org.apache.curator", "error");
        if (args.length == 2 && args[0].equals("--tables")) { // render the tables of a series from its runs.tsv
            Path out = Path.of(args[1]);
            writeTables(out.resolve("runs.tsv"), out);
            try (var files = Files.list(out)) {
                for (Path f : files.filter(p -> p.getFileName().toString().startsWith("series-")).sorted().toList()) {
                    System.out.println(Files.readString(f));
                }
            }
            return;
        }
        Options o;
        try {
            o = Options.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("zk-chaos: " + e.getMessage());
            System.err.println(Options.USAGE);
            System.exit(2);
            return;
        }
        List<RunReport> reports = runSeries(o);
        boolean valid = reports.stream().allMatch(RunReport::valid);
        System.exit(valid ? 0 : 1);
    }

    /**
     * Runs the series the options describe, printing each run's summary line. With several systems each seed runs
     * on each system in turn (the same workload and fault schedule, under the same machine load). Every run
     * appends its line to {@code <out>/runs.tsv} and rewrites each system's
     * table ({@code <out>/series-<system>.md}, and with several systems {@code series-side-by-side.md}) from every
     * line there after each run, so a series stopped early
     * leaves its table, and one run in parts adds up.
     */
    public static List<RunReport> runSeries(Options o) throws Exception {
        List<RunReport> reports = new ArrayList<>();
        Path rows = o.out().resolve("runs.tsv");
        for (int r = 0; r < o.repeat(); r++) {
            long seed = o.seed() + r;
            List<String> names = mixable(o.systems());
            String workload = o.workload().equals("mix") ? names.get(new Random(seed).nextInt(names.size()))
                    : o.workload();
            for (String system : o.systems()) {
                RunConfig c = new RunConfig(system, o.servers(), workload, o.nemesis(), o.time(), seed, o.out(),
                        o.workers());
                RunReport report = runStarting(c);
                if (report == null) {
                    continue;
                }
                reports.add(report);
                System.out.println(report.summary() + "  -> " + report.dir());
                for (String a : report.anomalies()) {
                    System.out.println("  ANOMALY " + a);
                }
                for (String f : report.facts()) {
                    System.out.println("  " + f);
                }
                Files.createDirectories(o.out());
                Files.writeString(rows, RunRow.of(report).toLine() + "\n", StandardOpenOption.CREATE,
                        StandardOpenOption.APPEND);
                writeTables(rows, o.out());
            }
        }
        if (o.repeat() > 1) {
            for (String system : o.systems()) {
                Path table = o.out().resolve("series-" + system + ".md");
                System.out.println();
                System.out.println(Files.readString(table));
                System.out.println("table written to " + table + " (every run in " + rows + ")");
            }
        }
        return reports;
    }

    /**
     * Runs {@code c}, starting it again (same seed, new ports) when its ensemble could not be started at all — a
     * server that lost its port to another process, say; that is the harness's trouble, not a finding — at most
     * three times; then the run is left out of the series (null) and the series goes on.
     */
    private static RunReport runStarting(RunConfig c) throws Exception {
        for (int attempt = 1; ; attempt++) {
            try {
                return new ChaosRun(c).run();
            } catch (IllegalStateException notStarted) {
                System.out.println(c.label() + ": the ensemble did not start (" + notStarted.getMessage() + ")"
                        + (attempt < 3 ? "; starting it again" : "; left out of the series"));
                if (attempt == 3) {
                    return null;
                }
            }
        }
    }

    /** The workloads {@code mix} draws from: those every one of the systems runs. */
    static List<String> mixable(List<String> systems) {
        List<String> names = new ArrayList<>(Workloads.names(systems.get(0)));
        for (String s : systems) {
            names.retainAll(Workloads.names(s));
        }
        return names;
    }

    private static void writeTables(Path rows, Path out) throws java.io.IOException {
        Map<String, List<RunRow>> bySystem = new TreeMap<>();
        for (String line : Files.readAllLines(rows)) {
            if (!line.isBlank()) {
                RunRow row = RunRow.parse(line);
                bySystem.computeIfAbsent(row.system(), k -> new ArrayList<>()).add(row);
            }
        }
        for (Map.Entry<String, List<RunRow>> e : bySystem.entrySet()) {
            Files.writeString(out.resolve("series-" + e.getKey() + ".md"), SeriesTable.render(e.getValue()));
        }
        if (bySystem.size() > 1) {
            Files.writeString(out.resolve("series-side-by-side.md"), SeriesTable.comparison(bySystem));
        }
    }

    /** The command line. */
    public record Options(List<String> systems, int servers, String workload, String nemesis, Duration time, long seed,
                          int repeat, int workers, Path out) {

        static final String USAGE = "usage: zk-chaos --system zkr|zookeeper|zkr,zookeeper [--servers 3|5] [--workload "
                + String.join("|", Workloads.names()) + "|all|mix] [--nemesis KIND|mix] [--time 60s] [--seed N] "
                + "[--repeat N] [--workers 5] [--out target/chaos]\n       zk-chaos --tables DIR   (the tables of the "
                + "series in DIR, from its runs.tsv)";

        public static Options parse(String... args) {
            String system = null;
            int servers = 3;
            String workload = "register";
            String nemesis = "mix";
            Duration time = Duration.ofSeconds(60);
            long seed = System.currentTimeMillis() % 100_000;
            int repeat = 1;
            int workers = 5;
            Path out = Path.of("target", "chaos");
            for (int i = 0; i < args.length; i++) {
                String a = args[i];
                if (i + 1 >= args.length) {
                    throw new IllegalArgumentException(a + " needs a value");
                }
                String v = args[++i];
                switch (a) {
                    case "--system" -> system = v;
                    case "--servers" -> servers = Integer.parseInt(v);
                    case "--workload" -> workload = v;
                    case "--nemesis" -> nemesis = v;
                    case "--time" -> time = duration(v);
                    case "--seed" -> seed = Long.parseLong(v);
                    case "--repeat" -> repeat = Integer.parseInt(v);
                    case "--workers" -> workers = Integer.parseInt(v);
                    case "--out" -> out = Path.of(v);
                    default -> throw new IllegalArgumentException("unknown option " + a);
                }
            }
            if (system == null) {
                throw new IllegalArgumentException("--system is required");
            }
            List<String> systems = List.of(system.split(","));
            for (String s : systems) {
                new RunConfig(s, servers, workload, nemesis, time, seed, out, workers); // refuses bad settings
                if (!workload.equals("mix")) {
                    Workloads.create(workload, s);
                }
            }
            if (!nemesis.equals("mix")) {
                dev.zkr.chaos.nemesis.NemesisKind.parse(nemesis);
            }
            if (repeat < 1) {
                throw new IllegalArgumentException("--repeat must be at least 1");
            }
            return new Options(systems, servers, workload, nemesis, time, seed, repeat, workers, out);
        }

        /** {@code 60s}, {@code 2m}, {@code 500ms}, or plain seconds. */
        static Duration duration(String v) {
            if (v.endsWith("ms")) {
                return Duration.ofMillis(Long.parseLong(v.substring(0, v.length() - 2)));
            }
            if (v.endsWith("s")) {
                return Duration.ofSeconds(Long.parseLong(v.substring(0, v.length() - 1)));
            }
            if (v.endsWith("m")) {
                return Duration.ofMinutes(Long.parseLong(v.substring(0, v.length() - 1)));
            }
            return Duration.ofSeconds(Long.parseLong(v));
        }
    }
}
