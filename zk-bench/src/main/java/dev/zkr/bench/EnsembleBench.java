package dev.zkr.bench;

import dev.zkr.bench.ResultTable.Column;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The ensemble rows ({@code --ensemble N}): an ensemble of N servers per system, every server in its own JVM on
 * loopback, fsync on, both systems on the same tick, alive together so they can take turns. Load rows (creates,
 * setData, heap, reads, lock) run on one pair of ensembles; the failover rows (kill -9 and SIGSTOP of the leader)
 * on a fresh pair.
 *
 * <p>Clients are pinned to servers round robin in the order followers first (by id), then the leader: with 3
 * servers, client k of a scenario connects to [F1, F2, L][k mod 3] only — the spread a full connect string gives on
 * average, made the same for both systems.
 */
final class EnsembleBench {

    private static final Duration FULL = Duration.ofSeconds(120);

    private final BenchOptions options;
    private final ResultTable table;
    private final Path logDir;
    private final ServerFlavor zkr;
    private final ServerFlavor zookeeper = new ServerFlavor.ZooKeeper();
    private final List<String> notes = new ArrayList<>();
    private final String prefix;

    EnsembleBench(BenchOptions options, ResultTable table, Path logDir) {
        this.options = options;
        this.zkr = new ServerFlavor.Zkr(options.admin());
        this.table = table;
        this.logDir = logDir;
        this.prefix = options.ensemble() + " servers: ";
    }

    /** Lines to print under the table: placement, heap details, where the gaps went. */
    List<String> notes() {
        return List.copyOf(notes);
    }

    void run() {
        if (runsAny("create", "setdata", "heap", "getdata", "lock", "zkclient")) {
            loadRows();
        }
        if (runsAny("kill", "sigstop")) {
            failoverRows();
        }
        if (runsAny("observers", "catchup")) {
            new MembershipBench(options, table, logDir, notes).run();
        }
    }

    private boolean runsAny(String... ids) {
        for (String id : ids) {
            if (options.runs(id)) {
                return true;
            }
        }
        return false;
    }

    // ---- the two ensembles of a part ---------------------------------------------------------------------------

    /** A system's ensemble, or why it is not there. */
    private record Side(Column column, ServerFlavor flavor, Ensemble ensemble, String down) {
    }

    private Map<Column, Side> startBoth(String part) {
        Map<Column, Side> sides = new EnumMap<>(Column.class);
        for (ServerFlavor flavor : new ServerFlavor[] {zkr, zookeeper}) {
            Column column = flavor == zkr ? Column.ZKR : Column.ZOOKEEPER;
            String down = options.systems().contains(flavor.name()) ? flavor.unavailableReason()
                    : "not selected (--systems)";
            Ensemble e = null;
            if (down == null) {
                try {
                    e = Ensemble.start(flavor, options.ensemble(), options.dataRoot(), logDir,
                            part + "-" + flavor.name());
                    int leader = e.awaitFull(FULL);
                    BenchMain.log("  %-9s %-9s ensemble of %d up, leader server %d (%s)", part, flavor.name(),
                            e.size(), e.id(leader), e.connectString());
                } catch (RuntimeException failed) {
                    failed.printStackTrace();
                    down = "the " + part + " ensemble did not start, see the notes";
                    notes.add("The " + part + " ensemble of " + flavor.name() + " did not start: "
                            + ServerScenarios.describe(failed));
                    if (e != null) {
                        e.close();
                    }
                    e = null;
                }
            }
            sides.put(column, new Side(column, flavor, e, down));
        }
        return sides;
    }

    private static void closeBoth(Map<Column, Side> sides) {
        for (Side s : sides.values()) {
            if (s.ensemble() != null) {
                s.ensemble().close();
            }
        }
    }

    /** Followers by id, then the leader: client k goes to element k mod n. */
    private static ClientPlacement placement(Ensemble e) {
        return ClientPlacement.roundRobin(followersFirst(e));
    }

    /** The members' connect strings, followers by id first, then the leader (waiting until the ensemble is full). */
    static List<String> followersFirst(Ensemble e) {
        int leader = e.awaitFull(FULL);
        List<String> order = new ArrayList<>();
        for (int i = 0; i < e.size(); i++) {
            if (i != leader) {
                order.add(e.connectString(i));
            }
        }
        order.add(e.connectString(leader));
        return order;
    }

    // ---- load rows ---------------------------------------------------------------------------------------------

    /** One turn of one column: the figures of the scenario's rows. */
    @FunctionalInterface
    private interface Turn {
        Measurement[] run(Column column, ServerFlavor flavor, ClientPlacement placement, String root) throws Exception;
    }

    private void loadRows() {
        Map<Column, Side> sides = startBoth("load");
        try {
            notes.add("Clients are pinned round robin to [follower 1, follower 2, leader] (followers by server id): "
                    + "creates and reads put their 4 clients on F1, F2, L, F1; setData's one client is on F1; the 8 "
                    + "lock contenders on F1, F2, L, F1, F2, L, F1, F2.");
            if (options.runs("create")) {
                ResultTable.Row row = table.row(prefix + "async create PERSISTENT_SEQUENTIAL 100 B, 4 clients × 200 "
                        + "in flight", "creates/s", true, false);
                turns("create", sides, List.of(row), List.of(Column.ZKR, Column.ZOOKEEPER),
                        (column, flavor, placement, root) -> new Measurement[] {
                                ServerScenarios.asyncCreates(flavor, placement, root, window())});
            }
            if (options.runs("setdata")) {
                String label = prefix + "sync setData 100 B, 1 client on a follower";
                ResultTable.Row p50 = table.row(label + ", p50", "ms", false, false);
                ResultTable.Row p99 = table.row(label + ", p99", "ms", false, false);
                turns("setdata", sides, List.of(p50, p99), List.of(Column.ZKR, Column.ZOOKEEPER),
                        (column, flavor, placement, root) -> {
                            Latencies l = ServerScenarios.syncSetData(flavor, placement, root, window());
                            return new Measurement[] {Measurement.of(l.percentileMillis(50)),
                                    Measurement.of(l.percentileMillis(99))};
                        });
            }
            if (options.runs("heap")) {
                heap(sides);
            }
            if (options.runs("getdata")) {
                ResultTable.Row row = table.row(prefix + "async getData 100 B, 4 clients × 200 in flight over the "
                        + "servers", "reads/s", true, false);
                turns("getdata", sides, List.of(row), List.of(Column.ZKR, Column.ZOOKEEPER),
                        (column, flavor, placement, root) -> new Measurement[] {
                                ServerScenarios.asyncReads(flavor, placement, root, window())});
            }
            if (options.runs("lock")) {
                ResultTable.Row row = table.row(prefix + "lock handoffs, 8 contenders over the servers", "handoffs/s",
                        true, true);
                turns("lock", sides, List.of(row), List.of(Column.values()), (column, flavor, placement, root) ->
                        new Measurement[] {RecipeScenarios.lock(placed(RecipeBackends.factory(column), placement),
                                "(placed)", root, window())});
            }
            if (options.runs("zkclient")) {
                zooKeeperClientRows(sides);
            }
        } finally {
            closeBoth(sides);
        }
    }

    /**
     * The servers alone: the same stock ZooKeeper client (and Curator's lock) drives both ensembles, zkr's over
     * ZooKeeper's client protocol, with the placement of the rows above.
     */
    private void zooKeeperClientRows(Map<Column, Side> sides) {
        String on = prefix + "stock ZooKeeper client on both: ";
        ResultTable.Row creates = table.row(on + "async create PERSISTENT_SEQUENTIAL 100 B, 4 clients × 200 in flight",
                "creates/s", true, false);
        ResultTable.Row p50 = table.row(on + "sync setData 100 B, 1 client on a follower, p50", "ms", false, false);
        ResultTable.Row p99 = table.row(on + "sync setData 100 B, 1 client on a follower, p99", "ms", false, false);
        ResultTable.Row reads = table.row(on + "async getData 100 B, 4 clients × 200 in flight over the servers",
                "reads/s", true, false);
        ResultTable.Row handoffs = table.row(prefix + "Curator on both: lock handoffs, 8 contenders over the servers",
                "handoffs/s", true, false);
        RecipeSession.Factory curator = RecipeBackends.factory(Column.ZOOKEEPER);
        turns("zkclient", sides, List.of(creates, p50, p99, reads, handoffs), List.of(Column.ZKR, Column.ZOOKEEPER),
                (column, flavor, placement, root) -> {
                    Measurement c = ServerScenarios.asyncCreates(zookeeper, placement, root + "/c", window());
                    Latencies l = ServerScenarios.syncSetData(zookeeper, placement, root + "/s", window());
                    Measurement r = ServerScenarios.asyncReads(zookeeper, placement, root + "/r", window());
                    Measurement h = RecipeScenarios.lock(placed(curator, placement), "(placed)", root + "/l",
                            window());
                    return new Measurement[] {c, Measurement.of(l.percentileMillis(50)),
                        Measurement.of(l.percentileMillis(99)), r, h};
                });
    }

    /** A factory whose n-th session connects to {@code placement}'s server n (the scenario's contender n). */
    private static RecipeSession.Factory placed(RecipeSession.Factory factory, ClientPlacement placement) {
        java.util.concurrent.atomic.AtomicInteger opened = new java.util.concurrent.atomic.AtomicInteger();
        return ignored -> factory.open(placement.connectString(opened.getAndIncrement()));
    }

    private void turns(String id, Map<Column, Side> sides, List<ResultTable.Row> rows, List<Column> columns,
                       Turn turn) {
        // warm-up rounds (--warmup-rounds) are numbered from 1 - N and kept out of the cells
        for (int r = 1 - options.warmupRounds(); r <= options.rounds(); r++) {
            List<Column> order = new ArrayList<>(columns);
            if (r % 2 == 0) {
                java.util.Collections.reverse(order);
            }
            for (Column column : order) {
                Side side = sides.get(column == Column.ZKR ? Column.ZKR : Column.ZOOKEEPER);
                Measurement[] ms = new Measurement[rows.size()];
                if (side.ensemble() == null) {
                    java.util.Arrays.fill(ms, Measurement.failed(side.down()));
                } else {
                    String root = "/bench-" + column.name().toLowerCase(Locale.ROOT).replace('_', '-')
                            + roundRoot(r);
                    try {
                        Measurement[] got = turn.run(column, side.flavor(), placement(side.ensemble()), root);
                        System.arraycopy(got, 0, ms, 0, ms.length);
                    } catch (Exception e) {
                        System.err.println("[zk-bench] ensemble " + id + " round " + r + " on " + column.title
                                + " failed:");
                        e.printStackTrace();
                        java.util.Arrays.fill(ms, Measurement.failed(ServerScenarios.describe(e)));
                    }
                }
                StringBuilder line = new StringBuilder();
                for (int i = 0; i < rows.size(); i++) {
                    if (r >= 1) {
                        rows.get(i).add(column, ms[i]);
                    }
                    line.append(i == 0 ? "" : ", ").append(ResultTable.cell(ms[i], rows.get(i).unit));
                }
                BenchMain.log("  %-9s %s  %-24s %s", id,
                        r >= 1 ? "round " + r : "warm-up " + (r + options.warmupRounds()), column.title, line);
            }
        }
    }

    /**
     * Heap in use on every server after a full GC ({@code jcmd <pid> GC.run}, then {@code GC.heap_info}), taken
     * after the write rows; the row shows the largest of the servers, the notes every server and how many znodes
     * each holds. The create rows leave each system as many znodes as it created in its windows, so the system that
     * holds fewer is first topped up (the same 100 B sequential creates, under {@code /bench-heap-topup}) to the
     * other's count: both are weighed holding the same tree size.
     */
    private void heap(Map<Column, Side> sides) {
        ResultTable.Row row = table.row(prefix + "heap per server after the write rows (largest; jcmd GC.run, "
                + "then GC.heap_info; same znode count)", "MB", false, false);
        Map<Column, Long> held = new java.util.EnumMap<>(Column.class);
        for (Column column : List.of(Column.ZKR, Column.ZOOKEEPER)) {
            Side side = sides.get(column);
            if (side.ensemble() != null) {
                try {
                    held.put(column, znodesHeld(column, side));
                } catch (RuntimeException failed) {
                    failed.printStackTrace();
                }
            }
        }
        if (held.size() == 2) {
            long most = Math.max(held.get(Column.ZKR), held.get(Column.ZOOKEEPER));
            for (Column column : List.of(Column.ZKR, Column.ZOOKEEPER)) {
                long missing = most - held.get(column);
                if (missing > 0) {
                    Side side = sides.get(column);
                    try (KvClient c = side.flavor().connect(side.ensemble().connectString(
                            side.ensemble().awaitFull(FULL)), ServerScenarios.CONNECT)) {
                        topUp(c, missing);
                        held.put(column, most);
                        BenchMain.log("  %-9s %-9s topped up with %,d znodes", "heap", side.flavor().name(), missing);
                    }
                }
            }
        }
        for (Column column : List.of(Column.ZKR, Column.ZOOKEEPER)) {
            Side side = sides.get(column);
            if (side.ensemble() == null) {
                row.set(column, Measurement.failed(side.down()));
                continue;
            }
            Ensemble e = side.ensemble();
            try {
                int leader = e.awaitFull(FULL);
                List<String> each = new ArrayList<>();
                double largest = 0;
                for (int i = 0; i < e.size(); i++) {
                    double mb = e.server(i).heapUsedAfterFullGc() / 1048576.0;
                    largest = Math.max(largest, mb);
                    each.add("server " + e.id(i) + (i == leader ? " (leader) " : " ") + ResultTable.number(mb));
                }
                row.set(column, Measurement.of(largest));
                String holding = held.containsKey(column)
                        ? String.format(Locale.ROOT, ", holding %,d znodes", held.get(column)) : "";
                notes.add("Heap after full GC, " + side.flavor().name() + ": " + String.join(", ", each) + " MB"
                        + holding + ".");
                BenchMain.log("  %-9s %-9s %s MB%s", "heap", side.flavor().name(), String.join(", ", each), holding);
            } catch (RuntimeException failed) {
                failed.printStackTrace();
                row.set(column, Measurement.failed(ServerScenarios.describe(failed)));
            }
        }
    }

    /** Creates {@code n} znodes of 100 B under {@code /bench-heap-topup}, 1,000 per parent (as the create rows). */
    private static void topUp(KvClient c, long n) {
        String base = "/bench-heap-topup";
        c.ensurePath(base, new byte[0]);
        int parents = (int) ((n + 999) / 1000);
        ServerScenarios.createAll(c, parents, 200, i -> base + "/p" + i, new byte[0]);
        ServerScenarios.createAll(c, (int) n, 200, i -> base + "/p" + (i / 1000) + "/n" + (i % 1000),
                ServerScenarios.payload());
    }

    /** A round's folder under a column's root: {@code /r1}... for measured rounds, {@code /w1}... for warm-ups. */
    private String roundRoot(int r) {
        return r >= 1 ? "/r" + r : "/w" + (r + options.warmupRounds());
    }

    /** The znodes the create rows left on this system (0 if they did not run). */
    private long znodesHeld(Column column, Side side) {
        if (!options.runs("create")) {
            return 0;
        }
        Ensemble e = side.ensemble();
        long znodes = 0;
        try (KvClient c = side.flavor().connect(e.connectString(e.awaitFull(FULL)), ServerScenarios.CONNECT)) {
            String base = "/bench-" + column.name().toLowerCase(Locale.ROOT).replace('_', '-');
            for (int r = 1 - options.warmupRounds(); r <= options.rounds(); r++) {
                znodes += ServerScenarios.createdUnder(c, base + roundRoot(r));
            }
        }
        return znodes;
    }

    // ---- failover rows -----------------------------------------------------------------------------------------

    /** The four rows of one fault: the gap and its three phases. */
    private record GapRows(ResultTable.Row gap, ResultTable.Row detection, ResultTable.Row election,
                           ResultTable.Row syncAndWrite) {
    }

    private GapRows gapRows(Failover.Fault fault) {
        String what = prefix + "write gap after " + fault.title + " of the leader (median of " + options.kills() + ")";
        return new GapRows(
                table.row(what, "ms", false, false),
                table.row("… " + fault.title + ": detection (fault → first role change of a survivor)", "ms", false,
                        false),
                table.row("… " + fault.title + ": election (→ a survivor leads)", "ms", false, false),
                table.row("… " + fault.title + ": sync + first write (→ first acknowledged write)", "ms", false,
                        false));
    }

    private void failoverRows() {
        Map<Column, Side> sides = startBoth("failover");
        try {
            notes.add("Write gap: a client connected only to the surviving server with the lowest id writes (blocking "
                    + "setData, retried 1 ms after a failure) while the leader gets the signal; the gap runs from the "
                    + "signal to the acknowledgement of the first write issued after it. Phases come from the role "
                    + "lines the survivors print (ZooKeeper: `Peer state changed: looking|following|leading"
                    + "[ - broadcast]`; zkr: `role: server N is CANDIDATE|FOLLOWER|LEADER`), timestamped as they "
                    + "arrive at the runner. After each kill the leader is restarted on its data dir, after each "
                    + "SIGSTOP it gets SIGCONT, and the ensemble must be complete again before the next fault. "
                    + "Phase cells are medians of each phase, so they need not add up to the gap's median.");
            for (Failover.Fault fault : Failover.Fault.values()) {
                if (!options.runs(fault == Failover.Fault.KILL ? "kill" : "sigstop")) {
                    continue;
                }
                GapRows rows = gapRows(fault);
                Map<Column, List<GapBreakdown>> gaps = new EnumMap<>(Column.class);
                Map<Column, String> broken = new EnumMap<>(Column.class);
                for (int k = 1; k <= options.kills(); k++) {
                    List<Column> order = new ArrayList<>(List.of(Column.ZKR, Column.ZOOKEEPER));
                    if (k % 2 == 0) {
                        java.util.Collections.reverse(order);
                    }
                    for (Column column : order) {
                        Side side = sides.get(column);
                        String down = side.ensemble() == null ? side.down() : broken.get(column);
                        if (down != null) {
                            addGap(rows, column, null, down);
                            continue;
                        }
                        try {
                            GapBreakdown g = Failover.once(side.ensemble(), fault,
                                    "/failover-" + (fault == Failover.Fault.KILL ? "kill" : "stop") + "-" + k);
                            gaps.computeIfAbsent(column, c -> new ArrayList<>()).add(g);
                            addGap(rows, column, g, null);
                        } catch (Exception e) {
                            System.err.println("[zk-bench] " + fault.title + " " + k + " on " + column.title
                                    + " failed:");
                            e.printStackTrace();
                            String why = ServerScenarios.describe(e);
                            addGap(rows, column, null, why);
                            broken.put(column, "not run: the ensemble broke at " + fault.title + " " + k);
                        }
                    }
                }
                gapNotes(fault, gaps);
            }
        } finally {
            closeBoth(sides);
        }
    }

    private static void addGap(GapRows rows, Column column, GapBreakdown g, String failure) {
        if (g == null) {
            Measurement failed = Measurement.failed(failure);
            for (ResultTable.Row r : List.of(rows.gap(), rows.detection(), rows.election(), rows.syncAndWrite())) {
                r.add(column, failed);
            }
            return;
        }
        rows.gap().add(column, Measurement.of(g.gapMs()));
        rows.detection().add(column, phase(g.detectionMs()));
        rows.election().add(column, phase(g.electionMs()));
        rows.syncAndWrite().add(column, Measurement.of(g.syncAndWriteMs()));
    }

    private static Measurement phase(Double ms) {
        return ms == null ? Measurement.failed("no role line seen") : Measurement.of(ms);
    }

    /** ZooKeeper's sync + first write, split at the new leader's {@code leading - broadcast} line. */
    private void gapNotes(Failover.Fault fault, Map<Column, List<GapBreakdown>> gaps) {
        for (Column column : List.of(Column.ZKR, Column.ZOOKEEPER)) {
            String system = column == Column.ZKR ? "zkr" : "ZooKeeper";
            List<GapBreakdown> gs = gaps.getOrDefault(column, List.of());
            double[] sync = gs.stream().filter(g -> g.syncMs() != null).mapToDouble(GapBreakdown::syncMs).toArray();
            double[] write = gs.stream().filter(g -> g.writeAfterSyncMs() != null)
                    .mapToDouble(GapBreakdown::writeAfterSyncMs).toArray();
            if (sync.length > 0) {
                notes.add(String.format(Locale.ROOT, "%s, %s: sync + first write splits into sync (LEADING → "
                                + "`leading - broadcast` on the new leader) median %s ms and first write (then → the "
                                + "client's first acknowledged write: reconnect, session re-attach, write) median %s ms.",
                        system, fault.title, ResultTable.number(ResultTable.median(sync)),
                        ResultTable.number(ResultTable.median(write))));
            }
        }
    }

    private Window window() {
        return new Window(options.warmup(), options.measure());
    }
}
