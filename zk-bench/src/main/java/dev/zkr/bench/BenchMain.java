package dev.zkr.bench;

import dev.zkr.bench.ResultTable.Column;

import java.io.IOException;
import java.net.InetAddress;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;

/**
 * The benchmark runner: measures zkr (server + native client + recipes) against Apache ZooKeeper 3.9 (server + stock
 * client) and Curator 5.7 recipes in one run, each server in its own JVM, all load from this JVM, and prints one
 * Markdown table (also written to {@code zk-bench/results/latest.md}).
 */
public final class BenchMain {

    private final BenchOptions options;
    private final ResultTable table = new ResultTable();
    private final List<String> notes = new java.util.ArrayList<>();
    private final ServerFlavor zkr;
    private final ServerFlavor zookeeper = new ServerFlavor.ZooKeeper();
    private final Path logDir;
    private String loadAtStart = "?";

    private BenchMain(BenchOptions options) {
        this.options = options;
        this.zkr = new ServerFlavor.Zkr(options.admin());
        this.logDir = options.resultsDir().resolve("logs");
    }

    public static void main(String[] args) {
        if (System.getProperty("org.slf4j.simpleLogger.defaultLogLevel") == null) {
            System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
        }
        Path benchDir = benchDir();
        BenchOptions options;
        try {
            options = BenchOptions.parse(args, benchDir.resolve("results"), benchDir.resolve("target/bench-data"));
        } catch (IllegalArgumentException e) {
            if (!"help".equals(e.getMessage())) {
                System.err.println(e.getMessage());
            }
            System.err.print(BenchOptions.USAGE);
            System.exit("help".equals(e.getMessage()) ? 0 : 2);
            return;
        }
        int code = 0;
        try {
            new BenchMain(options).run();
        } catch (Exception e) {
            e.printStackTrace();
            code = 1;
        }
        System.exit(code); // the shutdown hook kills any server JVM still alive
    }

    private void run() throws IOException {
        Files.createDirectories(logDir);
        deleteTree(options.dataRoot());
        Files.createDirectories(options.dataRoot());
        long t0 = System.nanoTime();
        loadAtStart = loadAverage();
        if (options.admin()) {
            notes.add("--admin: the zkr servers ran with the admin endpoint on (adminPort 0), so their request, "
                    + "fsync and commit metrics were recorded on the request path");
        }
        log("zk-bench: %d round(s) of warm-up %s + window %s per scenario and system; scenarios %s; results in %s",
                options.rounds(), seconds(options.warmup()), seconds(options.measure()), ordered(),
                options.resultsDir());
        try {
            if (options.ensemble() > 0) {
                EnsembleBench ensembles = new EnsembleBench(options, table, logDir);
                ensembles.run();
                notes.addAll(ensembles.notes());
                return;
            }
            if (options.runs("create")) {
                serverScenario("create", "async create PERSISTENT_SEQUENTIAL 100 B, 4 clients × 200 in flight",
                        "creates/s", ServerScenarios::asyncCreates);
            }
            if (options.runs("setdata")) {
                setData();
            }
            if (options.runs("notify")) {
                deleteNotify();
            }
            if (options.runs("getdata")) {
                serverScenario("getdata", "async getData 100 B, 4 clients × 200 in flight", "reads/s",
                        ServerScenarios::asyncReads);
            }
            recipe("lock", "lock handoffs, 8 contenders", "handoffs/s", true, RecipeScenarios::lock);
            recipe("rwlock", "read/write lock acquisitions, 8 contenders, 1 in 4 writers", "acquisitions/s", true,
                    RecipeScenarios::readWriteLock);
            recipe("election", "leader election handover p50, 5 participants (fair)", "ms", false,
                    RecipeScenarios::election);
            recipe("selector", "leader selector handover p50, 5 participants (fair)", "ms", false,
                    RecipeScenarios::selector);
            recipe("barrier", "double barrier enter + leave p50, 10 parties", "ms", false,
                    RecipeScenarios::doubleBarrier);
            recipe("counter", "counter increments, 8 contenders", "increments/s", true, RecipeScenarios::counter);
            recipe("queue", "queue items, 1 producer, 4 consumers", "items/s", true, RecipeScenarios::queue);
            recipe("prioqueue", "priority-queue items, 1 producer, 4 consumers, priorities 0-9", "items/s", true,
                    RecipeScenarios::priorityQueue);
            recipe("semaphore", "semaphore acquisitions, 8 contenders, 3 permits", "acquisitions/s", true,
                    RecipeScenarios::semaphore);
            if (options.runs("asynclock")) {
                asyncLock();
            }
            if (options.runs("tlscreate") || options.runs("tlsgetdata")) {
                tlsRows();
            }
            if (options.runs("cache")) {
                cachePropagation();
            }
            if (options.runs("discovery")) {
                discoveryVisibility();
            }
            if (options.runs("cachemem")) {
                cacheMemory();
            }
            if (options.runs("million")) {
                bigTree();
            }
            if (options.runs("zkclient")) {
                zooKeeperClientRows();
            }
            if (options.runs("watches")) {
                watchMemory();
            }
            if (options.runs("large")) {
                largeTree();
            }
        } finally {
            deleteTree(options.dataRoot());
            String report = report(Duration.ofNanos(System.nanoTime() - t0));
            System.out.println();
            System.out.println(report);
            Path latest = options.resultsDir().resolve(options.ensemble() > 0 ? "ensemble-latest.md" : "latest.md");
            Files.writeString(latest, report);
            log("written to %s", latest);
        }
    }

    // ---- rounds: both servers alive, the systems take turns --------------------------------------------------

    /** One round of one scenario on one column: a figure per row of the scenario. */
    @FunctionalInterface
    private interface ColumnRound {
        Measurement[] run(Column column, ServerFlavor flavor, String connectString, String root) throws Exception;
    }

    /**
     * Starts a fresh zkr server and a fresh ZooKeeper server (each its own JVM and data dir), then runs
     * {@code options.rounds()} rounds in which every column takes one turn (order alternating between rounds, each
     * turn on its own root path), and records every round's figures. Kills both servers at the end.
     */
    private void rounds(String id, List<ResultTable.Row> rows, List<Column> columns, ColumnRound round) {
        ServerProcess zkrServer = null;
        ServerProcess zkServer = null;
        String zkrDown = null;
        String zkDown = null;
        try {
            zkrDown = zkr.unavailableReason();
            if (zkrDown == null) {
                try {
                    zkrServer = zkr.startServing(dataDir(id, zkr), logDir, id + "-zkr", Duration.ofSeconds(60));
                } catch (RuntimeException e) {
                    zkrDown = "server did not start: " + ServerScenarios.describe(e);
                }
            }
            zkDown = zookeeper.unavailableReason();
            if (zkDown == null) {
                try {
                    zkServer = zookeeper.startServing(dataDir(id, zookeeper), logDir, id + "-zookeeper",
                            Duration.ofSeconds(60));
                } catch (RuntimeException e) {
                    zkDown = "server did not start: " + ServerScenarios.describe(e);
                }
            }
            // warm-up rounds (--warmup-rounds) are numbered from 1 - N and kept out of the cells
            for (int r = 1 - options.warmupRounds(); r <= options.rounds(); r++) {
                List<Column> order = new java.util.ArrayList<>(columns);
                if (r % 2 == 0) {
                    java.util.Collections.reverse(order);
                }
                for (Column column : order) {
                    boolean onZkr = column == Column.ZKR;
                    ServerProcess server = onZkr ? zkrServer : zkServer;
                    String down = onZkr ? zkrDown : zkDown;
                    Measurement[] ms = turn(id, column, onZkr ? zkr : zookeeper, server, down, r, rows.size(), round);
                    StringBuilder line = new StringBuilder();
                    for (int i = 0; i < rows.size(); i++) {
                        if (r >= 1) {
                            rows.get(i).add(column, ms[i]);
                        }
                        line.append(i == 0 ? "" : ", ").append(ResultTable.cell(ms[i], rows.get(i).unit));
                    }
                    log("  %-9s %s  %-24s %s", id, r >= 1 ? "round " + r : "warm-up " + (r + options.warmupRounds()),
                            column.title, line);
                }
            }
        } finally {
            if (zkrServer != null) {
                zkrServer.kill();
            }
            if (zkServer != null) {
                zkServer.kill();
            }
            deleteTree(dataDir(id, zkr));
            deleteTree(dataDir(id, zookeeper));
        }
    }

    private Measurement[] turn(String id, Column column, ServerFlavor flavor, ServerProcess server, String down,
                               int round, int n, ColumnRound body) {
        Measurement[] ms = new Measurement[n];
        if (server == null || !server.alive()) {
            java.util.Arrays.fill(ms, Measurement.failed(down != null ? down : "server died, see " + logDir));
            return ms;
        }
        String root = "/bench-" + column.name().toLowerCase(Locale.ROOT).replace('_', '-') + "/r" + round;
        try {
            Measurement[] got = body.run(column, flavor, server.connectString(), root);
            System.arraycopy(got, 0, ms, 0, n);
        } catch (Exception e) {
            System.err.println("[zk-bench] " + id + " round " + round + " on " + column.title + " failed:");
            e.printStackTrace();
            java.util.Arrays.fill(ms, Measurement.failed(ServerScenarios.describe(e)));
        }
        if (!server.alive()) {
            java.util.Arrays.fill(ms, Measurement.failed("server died, see " + logDir.resolve(server.name() + ".err")));
        }
        return ms;
    }

    private Path dataDir(String id, ServerFlavor flavor) {
        return options.dataRoot().resolve(id + "-" + flavor.name());
    }

    // ---- server scenarios ------------------------------------------------------------------------------------

    @FunctionalInterface
    private interface LoadScenario {
        Measurement run(ServerFlavor flavor, ClientPlacement placement, String root, Window window);
    }

    private void serverScenario(String id, String label, String unit, LoadScenario scenario) {
        ResultTable.Row row = table.row(label, unit, true, false);
        rounds(id, List.of(row), List.of(Column.ZKR, Column.ZOOKEEPER),
                (column, flavor, cs, root) -> new Measurement[] {scenario.run(flavor, ClientPlacement.single(cs), root,
                        window())});
    }

    /**
     * zkr with TLS vs ZooKeeper with TLS (secure client port, Netty on both ends) on the same throwaway material, and
     * each system's TLS figure relative to its plaintext figure measured in the same rounds: four servers stay up
     * (zkr, zkr with TLS, ZooKeeper plaintext on Netty — the stack its TLS runs on — and ZooKeeper with TLS) and
     * take turns round by round, so the overhead is not skewed by load that comes and goes between scenarios.
     */
    private void tlsRows() {
        BenchTls tls = BenchTls.generate(options.dataRoot().resolve("tls-material"));
        ServerFlavor zkrTls = new ServerFlavor.ZkrTls(tls);
        ServerFlavor zkTls = new ServerFlavor.ZooKeeperTls(tls);
        ServerFlavor zkNetty = new ServerFlavor.ZooKeeperNetty(tls);
        String create = "async create PERSISTENT_SEQUENTIAL 100 B, 4 clients × 200 in flight";
        String read = "async getData 100 B, 4 clients × 200 in flight";
        if (options.runs("tlscreate")) {
            tlsRounds("tlscreate", table.row("TLS: " + create, "creates/s", true, false),
                    table.row("plaintext (ZooKeeper on Netty), same rounds as TLS: " + create, "creates/s", true, false),
                    ServerScenarios::asyncCreates, zkrTls, zkTls, zkNetty);
        }
        if (options.runs("tlsgetdata")) {
            tlsRounds("tlsgetdata", table.row("TLS: " + read, "reads/s", true, false),
                    table.row("plaintext (ZooKeeper on Netty), same rounds as TLS: " + read, "reads/s", true, false),
                    ServerScenarios::asyncReads, zkrTls, zkTls, zkNetty);
        }
    }

    private void tlsRounds(String id, ResultTable.Row tlsRow, ResultTable.Row plainRow, LoadScenario scenario,
                           ServerFlavor zkrTls, ServerFlavor zkTls, ServerFlavor zkNetty) {
        record Turn(Column column, ServerFlavor flavor, ResultTable.Row row) {
        }
        List<Turn> turns = List.of(new Turn(Column.ZKR, zkr, plainRow), new Turn(Column.ZKR, zkrTls, tlsRow),
                new Turn(Column.ZOOKEEPER, zkNetty, plainRow), new Turn(Column.ZOOKEEPER, zkTls, tlsRow));
        java.util.Map<ServerFlavor, ServerProcess> servers = new java.util.HashMap<>();
        java.util.Map<ServerFlavor, String> down = new java.util.HashMap<>();
        try {
            for (Turn t : turns) {
                String missing = t.flavor().unavailableReason();
                if (missing != null) {
                    down.put(t.flavor(), missing);
                    continue;
                }
                try {
                    servers.put(t.flavor(), t.flavor().startServing(dataDir(id, t.flavor()), logDir,
                            id + "-" + t.flavor().name(), Duration.ofSeconds(60)));
                } catch (RuntimeException e) {
                    down.put(t.flavor(), "server did not start: " + ServerScenarios.describe(e));
                }
            }
            for (int r = 1; r <= options.rounds(); r++) {
                List<Turn> order = new java.util.ArrayList<>(turns);
                if (r % 2 == 0) {
                    java.util.Collections.reverse(order);
                }
                for (Turn t : order) {
                    Measurement[] ms = turn(id, t.column(), t.flavor(), servers.get(t.flavor()), down.get(t.flavor()),
                            r, 1, (column, flavor, cs, root) -> new Measurement[] {
                                scenario.run(flavor, ClientPlacement.single(cs), root, window())});
                    t.row().add(t.column(), ms[0]);
                    log("  %-10s round %d  %-14s %s", id, r, t.flavor().name(), ResultTable.cell(ms[0], t.row().unit));
                }
            }
        } finally {
            servers.values().forEach(ServerProcess::kill);
            for (Turn t : turns) {
                deleteTree(dataDir(id, t.flavor()));
            }
        }
        notes.add(TlsOverhead.note(id, plainRow, tlsRow));
    }

    private void setData() {
        String label = "sync setData 100 B, 1 client";
        ResultTable.Row p50 = table.row(label + ", p50", "ms", false, false);
        ResultTable.Row p99 = table.row(label + ", p99", "ms", false, false);
        rounds("setdata", List.of(p50, p99), List.of(Column.ZKR, Column.ZOOKEEPER), (column, flavor, cs, root) -> {
            Latencies l = ServerScenarios.syncSetData(flavor, ClientPlacement.single(cs), root, window());
            return new Measurement[] {Measurement.of(l.percentileMillis(50)), Measurement.of(l.percentileMillis(99))};
        });
    }

    /**
     * The servers alone: the same stock ZooKeeper 3.9.3 client (and Curator's lock) drives the zkr server, over
     * ZooKeeper's client protocol, and the ZooKeeper server, so the only difference is the server.
     */
    private void zooKeeperClientRows() {
        String on = "stock ZooKeeper client on both servers: ";
        ResultTable.Row creates = table.row(on + "async create PERSISTENT_SEQUENTIAL 100 B, 4 clients × 200 in flight",
                "creates/s", true, false);
        ResultTable.Row p50 = table.row(on + "sync setData 100 B, 1 client, p50", "ms", false, false);
        ResultTable.Row p99 = table.row(on + "sync setData 100 B, 1 client, p99", "ms", false, false);
        ResultTable.Row reads = table.row(on + "async getData 100 B, 4 clients × 200 in flight", "reads/s", true,
                false);
        ResultTable.Row handoffs = table.row("Curator on both servers: lock handoffs, 8 contenders", "handoffs/s",
                true, false);
        String ceiling = "ceiling: stock client against a null server (zkr's column; no tree, no disk), ratio = the "
                + "most any server can show: ";
        ResultTable.Row nullCreates = table.row(ceiling + "async create, as above", "creates/s", true, false);
        ResultTable.Row nullReads = table.row(ceiling + "async getData, as above", "reads/s", true, false);
        RecipeSession.Factory curator = RecipeBackends.factory(Column.ZOOKEEPER);
        rounds("zkclient", List.of(creates, p50, p99, reads, handoffs, nullCreates, nullReads),
                List.of(Column.ZKR, Column.ZOOKEEPER), (column, flavor, cs, root) -> {
                    ClientPlacement one = ClientPlacement.single(cs);
                    Measurement c = ServerScenarios.asyncCreates(zookeeper, one, root + "/c", window());
                    Latencies l = ServerScenarios.syncSetData(zookeeper, one, root + "/s", window());
                    Measurement r = ServerScenarios.asyncReads(zookeeper, one, root + "/r", window());
                    Measurement h = RecipeScenarios.lock(curator, cs, root + "/l", window());
                    // the ceiling rows: the null server in zkr's turn, ZooKeeper's own figures in its turn
                    Measurement[] ceilings = column == Column.ZKR ? nullServerCeiling(root) : new Measurement[] {c, r};
                    return new Measurement[] {c, Measurement.of(l.percentileMillis(50)),
                        Measurement.of(l.percentileMillis(99)), r, h, ceilings[0], ceilings[1]};
                });
    }

    /** The stock client's async creates and reads against a {@link NullZooKeeperServer} of its own JVM. */
    private Measurement[] nullServerCeiling(String root) {
        int port = ServerProcess.freePort();
        ServerProcess server = ServerProcess.start("null-server", "1g", NullZooKeeperServer.MAIN,
                List.of(Integer.toString(port)), port, logDir);
        try {
            server.awaitPort(Duration.ofSeconds(30));
            ClientPlacement one = ClientPlacement.single(server.connectString());
            return new Measurement[] {ServerScenarios.asyncCreates(zookeeper, one, root + "/c", window()),
                ServerScenarios.asyncReads(zookeeper, one, root + "/r", window())};
        } catch (RuntimeException e) {
            Measurement failed = Measurement.failed(ServerScenarios.describe(e));
            return new Measurement[] {failed, failed};
        } finally {
            server.kill();
        }
    }

    private void deleteNotify() {
        ResultTable.Row p50 = table.row(FloorRelative.FLOOR_ROW, "ms", false, false);
        rounds("notify", List.of(p50), List.of(Column.ZKR, Column.ZOOKEEPER), (column, flavor, cs, root) ->
                new Measurement[] {Measurement.of(
                        ServerScenarios.deleteNotify(flavor, cs, root, window()).percentileMillis(50))});
    }

    private void bigTree() {
        int parents = options.millionParents();
        int children = options.millionChildren();
        String n = String.format(Locale.ROOT, "%,d znodes", (long) parents * children);
        ResultTable.Row rate = table.row(n + ": build, 1 client × 1,000 in flight", "creates/s", true, false);
        ResultTable.Row heap = table.row(n + ": server heap after full GC", "MB", false, false);
        ResultTable.Row disk = table.row(n + ": data dir size", "MB", false, false);
        ResultTable.Row restart = table.row(n + ": restart to serving (kill -9, JVM start included)", "s", false, false);
        for (ServerFlavor flavor : new ServerFlavor[] {zkr, zookeeper}) {
            Column column = flavor == zkr ? Column.ZKR : Column.ZOOKEEPER;
            String missing = flavor.unavailableReason();
            Path dataDir = options.dataRoot().resolve("bigtree-" + flavor.name());
            try {
                if (missing != null) {
                    throw new IllegalStateException(missing);
                }
                log("  %-9s %-10s building %s ...", "million", flavor.name(), n);
                ServerScenarios.BigTree r = ServerScenarios.bigTree(flavor, parents, children, dataDir, logDir);
                rate.set(column, r.createRate());
                heap.set(column, r.heapMb());
                disk.set(column, r.diskMb());
                restart.set(column, r.restartSeconds());
            } catch (RuntimeException e) {
                Measurement failed = Measurement.failed(missing != null ? missing : ServerScenarios.describe(e));
                if (missing == null) {
                    e.printStackTrace();
                }
                for (ResultTable.Row row : new ResultTable.Row[] {rate, heap, disk, restart}) {
                    row.set(column, failed);
                }
            } finally {
                deleteTree(dataDir);
            }
            log("  %-9s %-10s %s, heap %s, disk %s, restart %s", "million", flavor.name(),
                    ResultTable.cell(rate.cell(column), "creates/s"), ResultTable.cell(heap.cell(column), "MB"),
                    ResultTable.cell(disk.cell(column), "MB"), ResultTable.cell(restart.cell(column), "s"));
        }
    }

    /** Server heap per session and per watch: 1,000 sessions with 100 exists watches each (watches). */
    private void watchMemory() {
        int sessions = options.quick() ? 100 : 1000;
        int perSession = 100;
        String n = String.format(Locale.ROOT, "%,d watches on %,d sessions", (long) sessions * perSession, sessions);
        ResultTable.Row perSessionRow = table.row(n + ": server heap per session (after full GC)", "bytes", false,
                false);
        ResultTable.Row perWatchRow = table.row(n + ": server heap per watch (after full GC)", "bytes", false, false);
        for (ServerFlavor flavor : new ServerFlavor[] {zkr, zookeeper}) {
            Column column = flavor == zkr ? Column.ZKR : Column.ZOOKEEPER;
            Path dataDir = options.dataRoot().resolve("watches-" + flavor.name());
            try {
                ServerScenarios.WatchMemory r = ServerScenarios.watchMemory(flavor, sessions, perSession, dataDir,
                        logDir);
                perSessionRow.set(column, r.bytesPerSession());
                perWatchRow.set(column, r.bytesPerWatch());
            } catch (RuntimeException e) {
                e.printStackTrace();
                Measurement failed = Measurement.failed(ServerScenarios.describe(e));
                perSessionRow.set(column, failed);
                perWatchRow.set(column, failed);
            } finally {
                deleteTree(dataDir);
            }
            log("  %-9s %-10s %s per session, %s per watch", "watches", flavor.name(),
                    ResultTable.cell(perSessionRow.cell(column), "bytes"),
                    ResultTable.cell(perWatchRow.cell(column), "bytes"));
        }
    }

    /** The server heap of a large tree: 10,000,000 znodes of 10 B (large; servers with -Xmx8g). */
    private void largeTree() {
        int parents = options.largeParents();
        int children = 1000;
        String n = String.format(Locale.ROOT, "%,d znodes of 10 B", (long) parents * children);
        ResultTable.Row rate = table.row(n + ": build, 1 client × 1,000 in flight", "creates/s", true, false);
        ResultTable.Row heap = table.row(n + ": server heap after full GC (-Xmx8g)", "MB", false, false);
        ResultTable.Row snapshot = table.row(n + ": last snapshot written during the build", "s", false, false);
        ResultTable.Row disk = table.row(n + ": data dir size", "MB", false, false);
        ResultTable.Row restart = table.row(n + ": restart to serving (kill -9, JVM start included)", "s", false, false);
        ResultTable.Row[] rows = {rate, heap, snapshot, disk, restart};
        byte[] payload = "0123456789".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        ServerFlavor bigZkr = new ServerFlavor.Zkr(options.admin()).heap(LARGE_HEAP);
        ServerFlavor bigZooKeeper = new ServerFlavor.ZooKeeper().heap(LARGE_HEAP);
        for (ServerFlavor flavor : new ServerFlavor[] {bigZkr, bigZooKeeper}) {
            Column column = flavor == bigZkr ? Column.ZKR : Column.ZOOKEEPER;
            Path dataDir = options.dataRoot().resolve("large-" + flavor.name());
            try {
                log("  %-9s %-10s building %s ...", "large", flavor.name(), n);
                ServerScenarios.BigTree r = ServerScenarios.bigTree(flavor, parents, children, payload, dataDir,
                        logDir, Duration.ofMinutes(30));
                rate.set(column, r.createRate());
                heap.set(column, r.heapMb());
                snapshot.set(column, r.snapshotSeconds());
                disk.set(column, r.diskMb());
                restart.set(column, r.restartSeconds());
            } catch (RuntimeException e) {
                e.printStackTrace();
                Measurement failed = Measurement.failed(ServerScenarios.describe(e));
                for (ResultTable.Row row : rows) {
                    row.set(column, failed);
                }
            } finally {
                deleteTree(dataDir);
            }
            log("  %-9s %-10s %s, heap %s, snapshot %s, disk %s, restart %s", "large", flavor.name(),
                    ResultTable.cell(rate.cell(column), "creates/s"), ResultTable.cell(heap.cell(column), "MB"),
                    ResultTable.cell(snapshot.cell(column), "s"), ResultTable.cell(disk.cell(column), "MB"),
                    ResultTable.cell(restart.cell(column), "s"));
        }
    }

    /** The servers' heap in the large-tree rows: ZooKeeper needs about 3.5 GB for 10,000,000 znodes. */
    private static final String LARGE_HEAP = "8g";

    // ---- recipe scenarios ------------------------------------------------------------------------------------

    @FunctionalInterface
    private interface RecipeScenario {
        Measurement run(RecipeSession.Factory factory, String connectString, String root, Window window)
                throws Exception;
    }

    private void recipe(String id, String label, String unit, boolean higherIsBetter, RecipeScenario scenario) {
        if (!options.runs(id)) {
            return;
        }
        ResultTable.Row row = table.row(label, unit, higherIsBetter, true);
        if (!id.equals("counter")) { // a counter's increments retry on conflict; they wait for no notification
            row.boundByFloor();
        }
        rounds(id, List.of(row), List.of(Column.values()), (column, flavor, cs, root) ->
                new Measurement[] {scenario.run(RecipeBackends.factory(column), cs, root, window())});
    }

    private void asyncLock() {
        String label = String.format(Locale.ROOT, "async lock, %,d waiters on one path, one session",
                RecipeScenarios.ASYNC_LOCK_WAITERS);
        ResultTable.Row handoffs = table.row(label + ": handoffs", "handoffs/s", true, true);
        ResultTable.Row threads = table.row(label + ": JVM threads while they wait", "threads", false, true);
        rounds("asynclock", List.of(handoffs, threads), List.of(Column.values()), (column, flavor, cs, root) ->
                RecipeScenarios.asyncLock(RecipeBackends.factory(column), cs, root));
    }

    private void cachePropagation() {
        String label = "tree cache propagation: setData → all 8 caches on other sessions hold it, 1,000 nodes";
        ResultTable.Row p50 = table.row(label + ", p50", "ms", false, true).boundByFloor();
        ResultTable.Row p99 = table.row(label + ", p99", "ms", false, true);
        rounds("cache", List.of(p50, p99), List.of(Column.values()), (column, flavor, cs, root) ->
                CacheScenarios.propagation(flavor, RecipeBackends.factory(column), cs, root, window()));
    }

    private void discoveryVisibility() {
        String label = "discovery registration-to-visible: register → all 8 service caches on other sessions hold it";
        ResultTable.Row p50 = table.row(label + ", p50", "ms", false, true).boundByFloor();
        ResultTable.Row p99 = table.row(label + ", p99", "ms", false, true);
        rounds("discovery", List.of(p50, p99), List.of(Column.values()), (column, flavor, cs, root) ->
                DiscoveryScenarios.registrationToVisible(RecipeBackends.factory(column), cs, root, window()));
    }

    private void cacheMemory() {
        ResultTable.Row heap = table.row(String.format(Locale.ROOT,
                "tree cache heap, %,d nodes of 100 B (runner JVM, after full GC)",
                CacheScenarios.MEMORY_PARENTS * CacheScenarios.MEMORY_CHILDREN), "MB", false, true);
        rounds("cachemem", List.of(heap), List.of(Column.values()), (column, flavor, cs, root) ->
                new Measurement[] {CacheScenarios.memory(flavor, RecipeBackends.factory(column), cs, root)});
    }

    // ---- plumbing --------------------------------------------------------------------------------------------

    private Window window() {
        return new Window(options.warmup(), options.measure());
    }

    private String report(Duration took) {
        StringBuilder sb = new StringBuilder();
        sb.append("# zk-bench: zkr vs Apache ZooKeeper 3.9.3 + Curator 5.7.1\n\n");
        sb.append("Run ").append(ZonedDateTime.now().format(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm z")))
                .append(" on ").append(machine()).append(".\n");
        if (options.ensemble() > 0) {
            sb.append("Ensembles of ").append(options.ensemble()).append(" servers per system on loopback, each server "
                            + "in its own JVM (`-Xmx").append(ServerFlavor.MEMBER_HEAP).append("`, fsync on every write, "
                            + "tickTime ").append(ServerFlavor.TICK_MS).append(" ms for both; ZooKeeper initLimit 10, "
                            + "syncLimit 5; zkr's election timeout derived from the tick); both ensembles alive "
                            + "together; all clients in the runner's JVM; ")
                    .append(options.warmupRounds() > 0 ? options.warmupRounds() + " whole warm-up round(s) of the "
                            + "load scenarios first (not in the cells), then " : "")
                    .append(options.rounds()).append(" round(s) of warm-up ").append(seconds(options.warmup()))
                    .append(" + window ").append(seconds(options.measure()))
                    .append(" per load scenario and system, ").append(options.kills())
                    .append(" faults per failover row and system, systems taking turns; load average at start ")
                    .append(loadAtStart).append("; run took ").append(seconds(took)).append(".\n\n");
        } else {
            sb.append("Each server in its own JVM (`-Xmx2g`, fsync on every write); all clients in the runner's JVM; ")
                    .append(options.warmupRounds() > 0 ? options.warmupRounds() + " whole warm-up round(s) on the "
                            + "fresh servers first (not in the cells), then " : "")
                    .append(options.rounds()).append(" round(s) of warm-up ").append(seconds(options.warmup()))
                    .append(" + window ").append(seconds(options.measure()))
                    .append(" per scenario and system, systems taking turns; load average at start ")
                    .append(loadAtStart).append("; run took ").append(seconds(took)).append(".\n\n");
        }
        sb.append(table.toMarkdown());
        List<String> all = new java.util.ArrayList<>(notes);
        all.addAll(FloorRelative.notes(table));
        if (!all.isEmpty()) {
            sb.append('\n');
            for (String note : all) {
                sb.append("- ").append(note).append('\n');
            }
        }
        return sb.toString();
    }

    private static String machine() {
        String host;
        try {
            host = InetAddress.getLocalHost().getHostName();
        } catch (IOException e) {
            host = "unknown host";
        }
        String cpu = firstMatch(Path.of("/proc/cpuinfo"), "model name");
        String mem = firstMatch(Path.of("/proc/meminfo"), "MemTotal");
        String memText = "";
        if (mem != null) {
            try {
                long kb = Long.parseLong(mem.replaceAll("[^0-9]", ""));
                memText = String.format(Locale.ROOT, ", %.0f GiB RAM", kb / 1048576.0);
            } catch (NumberFormatException ignored) {
                memText = "";
            }
        }
        return host + " (" + Runtime.getRuntime().availableProcessors() + " cores" + (cpu == null ? "" : " " + cpu)
                + memText + ", " + System.getProperty("os.name") + " " + System.getProperty("os.version")
                + ", Java " + System.getProperty("java.version") + ")";
    }

    private static String loadAverage() {
        try {
            String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
            return f[0] + " / " + f[1] + " / " + f[2];
        } catch (IOException | RuntimeException e) {
            return "?";
        }
    }

    private static String firstMatch(Path file, String key) {
        try (Stream<String> lines = Files.lines(file)) {
            return lines.filter(l -> l.startsWith(key)).map(l -> l.substring(l.indexOf(':') + 1).trim())
                    .findFirst().orElse(null);
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    private String ordered() {
        List<String> known = options.ensemble() > 0 ? BenchOptions.ENSEMBLE_SCENARIOS : BenchOptions.SCENARIOS;
        return String.join(",", known.stream().filter(options::runs).toList())
                + (options.ensemble() > 0 ? " on ensembles of " + options.ensemble() : "");
    }

    private static String seconds(Duration d) {
        return String.format(Locale.ROOT, "%.1f s", d.toMillis() / 1000.0);
    }

    static void log(String format, Object... args) {
        System.out.printf(Locale.ROOT, "[zk-bench] " + format + "%n", args);
        System.out.flush();
    }

    /** The zk-bench module directory: the jar or classes live in zk-bench/target. */
    private static Path benchDir() {
        try {
            Path code = Path.of(BenchMain.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            Path target = code.getParent();
            if (target != null && target.getFileName() != null && target.getFileName().toString().equals("target")
                    && target.getParent() != null) {
                return target.getParent();
            }
        } catch (URISyntaxException | RuntimeException ignored) {
            // fall through
        }
        Path cwd = Path.of("").toAbsolutePath();
        return Files.isDirectory(cwd.resolve("zk-bench")) ? cwd.resolve("zk-bench") : cwd;
    }

    private static void deleteTree(Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.deleteIfExists(p);
                } catch (IOException ignored) {
                    // best effort
                }
            });
        } catch (IOException ignored) {
            // best effort
        }
    }
}
