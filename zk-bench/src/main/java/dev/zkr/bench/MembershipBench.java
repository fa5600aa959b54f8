package dev.zkr.bench;

import dev.zkr.bench.ResultTable.Column;
import dev.zkr.client.Acls;
import dev.zkr.client.EnsembleMember;
import dev.zkr.client.MembershipChange;
import dev.zkr.client.ZkClient;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;

/**
 * The membership rows of an ensemble run (issue 29), opt-in with {@code --only observers,catchup}:
 * <ul>
 *   <li>{@code observers}: async reads over the N voters vs over the N voters + 2 observers, the same load (15
 *   clients × 200 in flight) spread round robin over every member of the shape; zkr's observers are added live
 *   ({@code reconfig} add-observer of servers started with {@code join=true}), ZooKeeper's are static
 *   ({@code peerType=observer}, {@code :observer} lines). Both shapes run on one ensemble per system (the observers
 *   idle in the voters-only turns);</li>
 *   <li>{@code catchup}: setData p50/p99 on the leader of an ensemble holding 200,000 znodes of 100 B, without a
 *   joiner vs from the launch of a fresh, empty server's JVM until it caught up (zkr: a learner added live, caught
 *   up when the leader promoted it to voter; ZooKeeper: a static observer started empty, caught up when {@code srvr}
 *   says {@code Mode: observer}), and that catch-up time.</li>
 * </ul>
 * Each part runs one warm-up round (logged, not in the cells), then {@code --rounds} rounds, systems taking turns.
 */
final class MembershipBench {

    static final int OBSERVERS = 2;
    /** Readers of the observers rows: a multiple of 3 and 5, so every member of either shape gets as many. */
    static final int READ_CLIENTS = 15;
    static final int TREE_CHILDREN = 1000;
    private static final String SUPER = "super:bench";
    /** With {@code --catchup-snap}: zkr's snapshot interval and the setData written after the tree. */
    static final int SNAP_SNAPSHOT_INTERVAL = 40_000;
    static final int SNAP_PADDING = 500_000;
    private static final Duration FULL = Duration.ofSeconds(120);
    private static final Duration CAUGHT_UP = Duration.ofMinutes(5);

    private final BenchOptions options;
    private final ResultTable table;
    private final Path logDir;
    private final List<String> notes;
    private final String prefix;
    private final ServerFlavor.ZooKeeper stockClient = new ServerFlavor.ZooKeeper();
    /** The measured rounds in which zkr's joiner installed a snapshot (SNAP) or did not (DIFF). */
    private final List<Integer> zkrSnaps = new ArrayList<>();
    private final List<Integer> zkrDiffs = new ArrayList<>();

    MembershipBench(BenchOptions options, ResultTable table, Path logDir, List<String> notes) {
        this.options = options;
        this.table = table;
        this.logDir = logDir;
        this.notes = notes;
        this.prefix = options.ensemble() + " servers: ";
    }

    void run() {
        if (options.runs("observers")) {
            observerRows();
        }
        if (options.runs("catchup")) {
            catchUpRows();
        }
    }

    /** The parents of the catch-up tree (1,000 children of 100 B each): 200, or 20 with {@code --quick}. */
    int treeParents() {
        return options.quick() ? 20 : 200;
    }

    // ---- one system's ensemble and its extra members -----------------------------------------------------------

    /** A system's voters, its extra members (observers or the joiner) and the processes running them. */
    private static final class Side implements AutoCloseable {
        final Column column;
        final ServerFlavor flavor;
        final Ensemble voters;
        final List<Ensemble.Member> extras;
        final List<ServerProcess> running = new ArrayList<>();
        String down;

        Side(Column column, ServerFlavor flavor, Ensemble voters, List<Ensemble.Member> extras, String down) {
            this.column = column;
            this.flavor = flavor;
            this.voters = voters;
            this.extras = extras;
            this.down = down;
        }

        String system() {
            return column == Column.ZKR ? "zkr" : "zookeeper";
        }

        @Override
        public void close() {
            running.forEach(ServerProcess::kill);
            if (voters != null) {
                voters.close();
            }
        }
    }

    private static List<Ensemble.Member> extraMembers(int firstId, int n) {
        List<Ensemble.Member> extras = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            extras.add(new Ensemble.Member(firstId + i, ServerProcess.freePort(), ServerProcess.freePort(),
                    ServerProcess.freePort()));
        }
        return extras;
    }

    /**
     * Starts each selected system's N voters; zkr's with a super digest (for {@code reconfig}), ZooKeeper's listing
     * {@code zookeeperExtras} as static observers. A system that cannot start is reported, not thrown.
     */
    private Map<Column, Side> startVoters(String part, int zookeeperExtras) {
        Map<Column, Side> sides = new EnumMap<>(Column.class);
        for (Column column : List.of(Column.ZKR, Column.ZOOKEEPER)) {
            String system = column == Column.ZKR ? "zkr" : "zookeeper";
            List<Ensemble.Member> voters = Ensemble.freshMembers(options.ensemble());
            List<Ensemble.Member> extras = column == Column.ZKR ? new ArrayList<>()
                    : extraMembers(options.ensemble() + 1, zookeeperExtras);
            List<String> settings = new ArrayList<>(List.of("superDigest=" + Acls.generateDigest(SUPER)));
            if (part.equals("catchup") && options.catchupSnap()) {
                settings.add("snapshotInterval=" + SNAP_SNAPSHOT_INTERVAL);
            }
            ServerFlavor flavor = column == Column.ZKR ? new ServerFlavor.Zkr(options.admin(), settings)
                    : new ServerFlavor.ZooKeeper(extras);
            String down = options.systems().contains(system) ? flavor.unavailableReason() : "not selected (--systems)";
            Ensemble e = null;
            if (down == null) {
                try {
                    List<List<Ensemble.Member>> views = new ArrayList<>();
                    voters.forEach(v -> views.add(voters));
                    e = Ensemble.start(flavor, voters, views, options.dataRoot(), logDir, part + "-" + system);
                    int leader = e.awaitFull(FULL);
                    BenchMain.log("  %-9s %-9s %d voters up, leader server %d", part, system, e.size(), e.id(leader));
                } catch (RuntimeException failed) {
                    failed.printStackTrace();
                    down = "the " + part + " ensemble did not start, see the notes";
                    notes.add("The " + part + " ensemble of " + system + " did not start: "
                            + ServerScenarios.describe(failed));
                    if (e != null) {
                        e.close();
                    }
                    e = null;
                }
            }
            sides.put(column, new Side(column, flavor, e, extras, down));
        }
        return sides;
    }

    private ZkClient superClient(String connectString) {
        ZkClient c = ZkClient.builder().connectString(connectString).sessionTimeout(Duration.ofSeconds(30))
                .connectTimeout(ServerScenarios.CONNECT).build();
        c.addAuthInfo("digest", SUPER.getBytes(StandardCharsets.UTF_8));
        return c;
    }

    private Path freshDir(String name) {
        Path dir = options.dataRoot().resolve(name);
        deleteTree(dir);
        return dir;
    }

    static void deleteTree(Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path f : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(f);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Polls {@code done} every 10 ms until it holds; fails at the deadline or if {@code p}'s JVM exited. */
    private static void await(String what, Duration timeout, ServerProcess p, BooleanSupplier done) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!done.getAsBoolean()) {
            if (p != null) {
                p.checkAlive();
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(what + " not within " + timeout);
            }
            ServerProcess.pause(10);
        }
    }

    private static boolean listening(int port) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 200);
            return true;
        } catch (IOException notYet) {
            return false;
        }
    }

    /** Whether a new session on {@code connectString} can read {@code path}. */
    private static boolean readable(ServerFlavor flavor, String connectString, String path) {
        try (KvClient c = flavor.connect(connectString, Duration.ofSeconds(5))) {
            c.getData(path);
            return true;
        } catch (RuntimeException notYet) {
            return false;
        }
    }

    private static String at(Ensemble.Member m) {
        return "127.0.0.1:" + m.clientPort();
    }

    private static EnsembleMember.Role roleOf(List<EnsembleMember> members, int id) {
        return members.stream().filter(m -> m.id() == id).map(EnsembleMember::role).findFirst().orElse(null);
    }

    // ---- observers: reads over 3 voters vs 3 voters + 2 observers -----------------------------------------------

    private void observerRows() {
        Map<Column, Side> sides = startVoters("observers", OBSERVERS);
        try {
            for (Side side : sides.values()) {
                if (side.down == null) {
                    try {
                        startObservers(side);
                    } catch (RuntimeException failed) {
                        failed.printStackTrace();
                        side.down = "observers did not start: " + ServerScenarios.describe(failed);
                        notes.add("The observers of " + side.system() + " did not start: "
                                + ServerScenarios.describe(failed));
                    }
                }
            }
            String shape = options.ensemble() + " voters";
            String load = "async getData 100 B, " + READ_CLIENTS + " clients × " + ServerScenarios.IN_FLIGHT
                    + " in flight over ";
            List<ResultTable.Row> rows = List.of(
                    table.row(prefix + "own client: " + load + "the " + shape, "reads/s", true, false),
                    table.row(prefix + "own client: " + load + "the " + shape + " + " + OBSERVERS + " observers",
                            "reads/s", true, false),
                    table.row(prefix + "stock ZooKeeper client on both: " + load + "the " + shape, "reads/s", true,
                            false),
                    table.row(prefix + "stock ZooKeeper client on both: " + load + "the " + shape + " + " + OBSERVERS
                            + " observers", "reads/s", true, false));
            notes.add("Observers rows: each system's ensemble holds " + shape + " and " + OBSERVERS + " observers "
                    + "for the whole part (zkr's added live: servers started with join=true, then `reconfig` "
                    + "add-observer by a superuser session; ZooKeeper's static: `peerType=observer` and `:observer` "
                    + "lines in every zoo.cfg). A row's " + READ_CLIENTS + " clients are pinned round robin to "
                    + "[followers by id, leader] (voters only) or [followers by id, leader, observers by id] (every "
                    + "member: " + READ_CLIENTS / (options.ensemble() + OBSERVERS) + " clients each); in the "
                    + "voters-only turns the observers idle. One warm-up round first, not in the cells.");
            for (int r = 0; r <= options.rounds(); r++) {
                List<Column> order = new ArrayList<>(List.of(Column.ZKR, Column.ZOOKEEPER));
                if (r % 2 == 0) {
                    java.util.Collections.reverse(order);
                }
                for (Column column : order) {
                    Side side = sides.get(column);
                    Measurement[] ms = new Measurement[rows.size()];
                    if (side.down != null) {
                        java.util.Arrays.fill(ms, Measurement.failed(side.down));
                    } else {
                        List<String> voters = EnsembleBench.followersFirst(side.voters);
                        List<String> all = new ArrayList<>(voters);
                        side.extras.forEach(o -> all.add(at(o)));
                        // the four rows in turn, their order reversed every other round
                        List<Integer> rowOrder = new ArrayList<>(List.of(0, 1, 2, 3));
                        if (r % 2 == 1) {
                            java.util.Collections.reverse(rowOrder);
                        }
                        for (int i : rowOrder) {
                            ServerFlavor client = i < 2 ? side.flavor : stockClient;
                            ClientPlacement placement = ClientPlacement.roundRobin(i % 2 == 0 ? voters : all);
                            String root = "/membership-reads/" + side.system() + "/r" + r + "/row" + i;
                            try {
                                ms[i] = ServerScenarios.asyncReads(client, placement, READ_CLIENTS, root,
                                        new Window(options.warmup(), options.measure()));
                            } catch (RuntimeException e) {
                                System.err.println("[zk-bench] observers row " + i + " round " + r + " on "
                                        + column.title + " failed:");
                                e.printStackTrace();
                                ms[i] = Measurement.failed(ServerScenarios.describe(e));
                            }
                        }
                    }
                    logAndAdd("observers", r, column, rows, ms);
                }
            }
        } finally {
            sides.values().forEach(Side::close);
        }
    }

    private void startObservers(Side side) {
        if (side.column == Column.ZKR) {
            ServerFlavor.Zkr zkr = (ServerFlavor.Zkr) side.flavor;
            List<Ensemble.Member> observers = extraMembers(options.ensemble() + 1, OBSERVERS);
            side.extras.addAll(observers);
            try (ZkClient admin = superClient(side.voters.connectString(side.voters.awaitFull(FULL)))) {
                for (Ensemble.Member o : observers) {
                    ServerProcess p = zkr.startJoiner(o, side.voters.members(),
                            freshDir("observers-zkr-" + o.id()), logDir, "observers-zkr-" + o.id());
                    side.running.add(p);
                    await("server " + o.id() + "'s peer port", FULL, p, () -> listening(o.peerPort()));
                    admin.reconfig(MembershipChange.addObserver(o.id(), "127.0.0.1", o.peerPort(), o.clientPort()));
                    await("observer " + o.id() + " serving", FULL, p, () -> readable(zkr, at(o), "/"));
                }
                List<EnsembleMember> members = admin.members();
                for (Ensemble.Member o : observers) {
                    if (roleOf(members, o.id()) != EnsembleMember.Role.OBSERVER) {
                        throw new IllegalStateException("server " + o.id() + " is not an observer: " + members);
                    }
                }
                BenchMain.log("  %-9s %-9s members %s", "observers", "zkr", members);
            }
        } else {
            ServerFlavor.ZooKeeper zk = (ServerFlavor.ZooKeeper) side.flavor;
            for (Ensemble.Member o : side.extras) {
                ServerProcess p = zk.startObserver(o, side.voters.members(),
                        freshDir("observers-zookeeper-" + o.id()), logDir, "observers-zookeeper-" + o.id());
                side.running.add(p);
            }
            for (int i = 0; i < side.extras.size(); i++) {
                Ensemble.Member o = side.extras.get(i);
                await("ZooKeeper observer " + o.id() + " (srvr Mode: observer)", FULL, side.running.get(i),
                        () -> ServerFlavor.ZooKeeper.observing(o.clientPort()));
            }
            BenchMain.log("  %-9s %-9s %d static observers serving", "observers", "zookeeper", side.extras.size());
        }
    }

    // ---- catch-up: setData on the leader while a fresh server joins ----------------------------------------------

    /** One catch-up: the setData latencies from the joiner's launch until it caught up, and that time. */
    private record CatchUp(Latencies latencies, double seconds) {
    }

    private void catchUpRows() {
        Map<Column, Side> sides = startVoters("catchup", 1);
        int parents = treeParents();
        long znodes = (long) parents * TREE_CHILDREN;
        String last = "/tree/p" + (parents - 1) + "/c" + (TREE_CHILDREN - 1);
        try {
            for (Side side : sides.values()) {
                if (side.down == null) {
                    try {
                        buildTree(side, parents, last);
                        if (options.catchupSnap()) {
                            pad(side);
                        }
                    } catch (RuntimeException failed) {
                        failed.printStackTrace();
                        side.down = "the tree was not built: " + ServerScenarios.describe(failed);
                    }
                }
            }
            String tree = String.format(Locale.ROOT, "%,d znodes of 100 B", znodes);
            String on = prefix + "sync setData 100 B on the leader (" + tree + "), ";
            ResultTable.Row baseP50 = table.row(on + "no joiner, p50", "ms", false, false);
            ResultTable.Row baseP99 = table.row(on + "no joiner, p99", "ms", false, false);
            ResultTable.Row joinP50 = table.row(on + "while a fresh server catches up, p50", "ms", false, false);
            ResultTable.Row joinP99 = table.row(on + "while a fresh server catches up, p99", "ms", false, false);
            ResultTable.Row took = table.row(prefix + "a fresh server's catch-up on " + tree + ": JVM launch → caught "
                    + "up", "s", false, false);
            List<ResultTable.Row> rows = List.of(baseP50, baseP99, joinP50, joinP99, took);
            notes.add("Catch-up rows: one client on the leader writes 100 B with blocking setData, without pause. "
                    + "\"No joiner\": a warm-up + window as the other rows. \"While a fresh server catches up\": the "
                    + "writer runs a warm-up, then an empty server's JVM is launched and every setData issued from "
                    + "the launch until it caught up is a sample. zkr: the server starts with join=true, a superuser "
                    + "session on the leader adds it (`reconfig` add: a learner) once its peer port listens, and it "
                    + "has caught up when the leader's `members()` lists it as a voter (polled every 10 ms; the "
                    + "leader promotes a learner once it caught up); then it is removed (`reconfig` remove), killed "
                    + "and its data deleted, the next round adding a new id. ZooKeeper (no dynamic reconfig driven): "
                    + "a static observer listed in every zoo.cfg, down until its turn, started with an empty data "
                    + "dir; caught up when its `srvr` reports `Mode: observer` (polled every 10 ms); then killed and "
                    + "its data deleted. Neither joiner counts toward the write quorum while it catches up. Each "
                    + "round checks that the joiner serves the tree's last znode. One warm-up round first, not in "
                    + "the cells. "
                    + (options.catchupSnap() ? String.format(Locale.ROOT, "--catchup-snap: zkr's servers snapshot "
                    + "every %,d txns, and after the tree both systems took %,d setData of 100 B on one znode "
                    + "(1,000 in flight), so zkr's leader has purged its first 64 MiB log segment and a joiner "
                    + "starting from nothing gets a SNAP.", SNAP_SNAPSHOT_INTERVAL, SNAP_PADDING)
                    : "zkr's servers snapshot every 100,000 txns (the default) and purge whole 64 MiB log segments "
                    + "only, so the leader still holds its whole log and a joiner gets a DIFF of it.")
                    + " ZooKeeper's leader logs `Sending snapshot` for its observer.");
            int[] nextZkrId = {options.ensemble() + 1};
            for (int r = 0; r <= options.rounds(); r++) {
                List<Column> order = new ArrayList<>(List.of(Column.ZKR, Column.ZOOKEEPER));
                if (r % 2 == 0) {
                    java.util.Collections.reverse(order);
                }
                for (Column column : order) {
                    Side side = sides.get(column);
                    Measurement[] ms = new Measurement[rows.size()];
                    if (side.down != null) {
                        java.util.Arrays.fill(ms, Measurement.failed(side.down));
                    } else {
                        String leaderAt = side.voters.connectString(side.voters.awaitFull(FULL));
                        String root = "/membership-catchup/r" + r;
                        try {
                            Latencies base = ServerScenarios.syncSetData(side.flavor,
                                    ClientPlacement.single(leaderAt), root + "/base",
                                    new Window(options.warmup(), options.measure()));
                            ms[0] = Measurement.of(base.percentileMillis(50));
                            ms[1] = Measurement.of(base.percentileMillis(99));
                        } catch (RuntimeException e) {
                            e.printStackTrace();
                            ms[0] = ms[1] = Measurement.failed(ServerScenarios.describe(e));
                        }
                        try {
                            CatchUp c = column == Column.ZKR
                                    ? catchUpZkr(side, leaderAt, root + "/join", nextZkrId[0]++, last, r)
                                    : catchUpZooKeeper(side, leaderAt, root + "/join", last, r);
                            ms[2] = Measurement.of(c.latencies().percentileMillis(50));
                            ms[3] = Measurement.of(c.latencies().percentileMillis(99));
                            ms[4] = Measurement.of(c.seconds());
                            BenchMain.log("  %-9s round %d  %-24s %,d samples while catching up", "catchup", r,
                                    column.title, c.latencies().count());
                        } catch (RuntimeException e) {
                            System.err.println("[zk-bench] catch-up round " + r + " on " + column.title + " failed:");
                            e.printStackTrace();
                            ms[2] = ms[3] = ms[4] = Measurement.failed(ServerScenarios.describe(e));
                        }
                    }
                    logAndAdd("catchup", r, column, rows, ms);
                }
            }
            notes.add("zkr's joiner synced by SNAP in " + zkrSnaps.size() + " and by DIFF in " + zkrDiffs.size()
                    + " of the measured rounds (its log's `installing snapshot … (SNAP sync)` line, or none).");
        } finally {
            sides.values().forEach(Side::close);
        }
    }

    /** parents × 1,000 znodes of 100 B under /tree, 1,000 creates in flight from one client on the leader. */
    private void buildTree(Side side, int parents, String last) {
        String leaderAt = side.voters.connectString(side.voters.awaitFull(FULL));
        long t0 = System.nanoTime();
        try (KvClient c = side.flavor.connect(leaderAt, ServerScenarios.CONNECT)) {
            c.ensurePath("/tree", new byte[0]);
            ServerScenarios.createAll(c, parents, 1000, i -> "/tree/p" + i, new byte[0]);
            ServerScenarios.createAll(c, parents * TREE_CHILDREN, 1000,
                    i -> "/tree/p" + (i / TREE_CHILDREN) + "/c" + (i % TREE_CHILDREN), ServerScenarios.payload());
            if (c.childCount("/tree") != parents || c.childCount("/tree/p" + (parents - 1)) != TREE_CHILDREN) {
                throw new IllegalStateException("the leader does not hold the tree it acknowledged");
            }
        }
        for (int i = 0; i < side.voters.size(); i++) {
            ServerScenarios.awaitVisible(side.flavor, side.voters.connectString(i), last);
        }
        BenchMain.log("  %-9s %-9s tree of %,d znodes built in %.1f s", "catchup", side.system(),
                (long) parents * TREE_CHILDREN, (System.nanoTime() - t0) / 1e9);
    }

    /** {@link #SNAP_PADDING} async setData of 100 B on one znode, 1,000 in flight, from a client on the leader. */
    private void pad(Side side) {
        String leaderAt = side.voters.connectString(side.voters.awaitFull(FULL));
        long t0 = System.nanoTime();
        byte[] data = ServerScenarios.payload();
        java.util.concurrent.Semaphore permits = new java.util.concurrent.Semaphore(1000);
        java.util.concurrent.atomic.AtomicReference<Throwable> failure = new java.util.concurrent.atomic
                .AtomicReference<>();
        try (KvClient c = side.flavor.connect(leaderAt, ServerScenarios.CONNECT)) {
            c.ensurePath("/pad", data);
            for (int i = 0; i < SNAP_PADDING && failure.get() == null; i++) {
                permits.acquire();
                c.setDataAsync("/pad", data, error -> {
                    if (error != null) {
                        failure.compareAndSet(null, error);
                    }
                    permits.release();
                });
            }
            if (!permits.tryAcquire(1000, 60, java.util.concurrent.TimeUnit.SECONDS)) {
                throw new IllegalStateException("setData still outstanding after 60 s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
        if (failure.get() != null) {
            throw new IllegalStateException("padding failed: " + ServerScenarios.describe(failure.get()),
                    failure.get());
        }
        BenchMain.log("  %-9s %-9s %,d setData written after the tree in %.1f s", "catchup", side.system(),
                SNAP_PADDING, (System.nanoTime() - t0) / 1e9);
    }

    /**
     * A blocking setData loop on the leader, recording each call's start and latency; {@link #samplesFrom} keeps
     * those that started in an interval.
     */
    private static final class Writer implements AutoCloseable {
        private final KvClient client;
        private final List<long[]> samples = new ArrayList<>();
        private final Thread thread;
        private volatile boolean stop;
        private volatile Throwable failure;

        Writer(ServerFlavor flavor, String leaderAt, String path) {
            client = flavor.connect(leaderAt, ServerScenarios.CONNECT);
            byte[] data = ServerScenarios.payload();
            client.ensurePath(path, data);
            thread = new Thread(() -> {
                try {
                    while (!stop) {
                        long t0 = System.nanoTime();
                        client.setData(path, data);
                        long t = System.nanoTime() - t0;
                        synchronized (samples) {
                            samples.add(new long[] {t0, t});
                        }
                    }
                } catch (Throwable e) {
                    failure = e;
                }
            }, "catchup-writer");
            thread.setDaemon(true);
            thread.start();
        }

        Latencies samplesFrom(long fromNanos, long toNanos) {
            stopAndJoin();
            if (failure != null) {
                throw new IllegalStateException("setData failed: " + ServerScenarios.describe(failure), failure);
            }
            Latencies l = new Latencies();
            synchronized (samples) {
                for (long[] s : samples) {
                    if (s[0] >= fromNanos && s[0] < toNanos) {
                        l.record(s[1]);
                    }
                }
            }
            return l;
        }

        private void stopAndJoin() {
            stop = true;
            try {
                thread.join(60_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted", e);
            }
        }

        @Override
        public void close() {
            stopAndJoin();
            client.close();
        }
    }

    private CatchUp catchUpZkr(Side side, String leaderAt, String path, int id, String last, int round) {
        ServerFlavor.Zkr zkr = (ServerFlavor.Zkr) side.flavor;
        Ensemble.Member joiner = extraMembers(id, 1).get(0);
        String label = "catchup-zkr-" + id;
        ServerProcess p = null;
        boolean added = false;
        boolean removed = false;
        try (ZkClient admin = superClient(leaderAt);
             Writer writer = new Writer(zkr, leaderAt, path)) {
            ServerProcess.pause(options.warmup().toMillis());
            long start = System.nanoTime();
            p = zkr.startJoiner(joiner, side.voters.members(), freshDir(label), logDir, label);
            ServerProcess launched = p;
            await("server " + id + "'s peer port", FULL, p, () -> listening(joiner.peerPort()));
            added = true;
            admin.reconfig(MembershipChange.add(id, "127.0.0.1", joiner.peerPort(), joiner.clientPort()));
            await("server " + id + " promoted to voter", CAUGHT_UP, p,
                    () -> roleOf(admin.members(), id) == EnsembleMember.Role.VOTER);
            long end = System.nanoTime();
            Latencies l = writer.samplesFrom(start, end);
            await("server " + id + " serving " + last, FULL, launched, () -> readable(zkr, at(joiner), last));
            String snap = launched.lastLogMatch(java.util.regex.Pattern.compile("installing snapshot (\\S+)"));
            BenchMain.log("  %-9s round %d  zkr server %d synced by %s", "catchup", round, id,
                    snap == null ? "DIFF (no snapshot installed)" : "SNAP of " + snap);
            if (round > 0) {
                (snap == null ? zkrDiffs : zkrSnaps).add(round);
            }
            admin.reconfig(MembershipChange.remove(id));
            removed = true;
            return new CatchUp(l, (end - start) / 1e9);
        } finally {
            if (p != null) {
                p.kill();
            }
            if (added && !removed) {
                removeQuietly(leaderAt, id);
            }
            deleteTree(options.dataRoot().resolve(label));
        }
    }

    /** After a failed round: takes a joiner that may have been added out of the membership again, if it can. */
    private void removeQuietly(String leaderAt, int id) {
        try (ZkClient admin = superClient(leaderAt)) {
            if (roleOf(admin.members(), id) != null) {
                admin.reconfig(MembershipChange.remove(id));
            }
        } catch (RuntimeException e) {
            System.err.println("[zk-bench] could not remove server " + id + " after a failed round: "
                    + ServerScenarios.describe(e));
        }
    }

    private CatchUp catchUpZooKeeper(Side side, String leaderAt, String path, String last, int round) {
        ServerFlavor.ZooKeeper zk = (ServerFlavor.ZooKeeper) side.flavor;
        Ensemble.Member joiner = side.extras.get(0);
        String label = "catchup-zookeeper-" + joiner.id();
        ServerProcess p = null;
        try (Writer writer = new Writer(zk, leaderAt, path)) {
            Path dir = freshDir(label);
            ServerProcess.pause(options.warmup().toMillis());
            long start = System.nanoTime();
            p = zk.startObserver(joiner, side.voters.members(), dir, logDir, label + "-r" + round);
            await("ZooKeeper observer " + joiner.id() + " (srvr Mode: observer)", CAUGHT_UP, p,
                    () -> ServerFlavor.ZooKeeper.observing(joiner.clientPort()));
            long end = System.nanoTime();
            Latencies l = writer.samplesFrom(start, end);
            ServerProcess launched = p;
            await("observer " + joiner.id() + " serving " + last, FULL, launched, () -> readable(zk, at(joiner), last));
            return new CatchUp(l, (end - start) / 1e9);
        } finally {
            if (p != null) {
                p.kill();
            }
            deleteTree(options.dataRoot().resolve(label));
        }
    }

    // ---- plumbing ----------------------------------------------------------------------------------------------

    /** Logs a turn; adds its figures to the rows unless it is the warm-up round (0). */
    private static void logAndAdd(String id, int round, Column column, List<ResultTable.Row> rows, Measurement[] ms) {
        StringBuilder line = new StringBuilder();
        for (int i = 0; i < rows.size(); i++) {
            if (round > 0) {
                rows.get(i).add(column, ms[i]);
            }
            line.append(i == 0 ? "" : ", ").append(ResultTable.cell(ms[i], rows.get(i).unit));
        }
        BenchMain.log("  %-9s round %d%s %-24s %s", id, round, round == 0 ? " (warm-up)" : "", column.title, line);
    }
}
