package dev.zkr.chaos;

import dev.zkr.bench.ServerFlavor;
import dev.zkr.bench.ServerProcess;
import dev.zkr.chaos.history.History;
import dev.zkr.chaos.nemesis.Fault;
import dev.zkr.chaos.nemesis.FaultWindow;
import dev.zkr.chaos.nemesis.Nemesis;
import dev.zkr.chaos.nemesis.NemesisKind;
import dev.zkr.chaos.nemesis.SlowFsync;
import dev.zkr.chaos.net.ClientNetwork;
import dev.zkr.chaos.recipes.Holders;
import dev.zkr.chaos.report.RunReport;
import dev.zkr.chaos.workload.FinalReads;
import dev.zkr.chaos.workload.Worker;
import dev.zkr.chaos.workload.Workload;
import dev.zkr.chaos.workload.Workloads;
import dev.zkr.client.ZkClient;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * One run: start the ensemble behind its proxies, set the workload up, run its workers while the nemesis injects
 * faults (quiet 2–4 s, fault held 4–8 s, repeated; shorter in runs under 20 s), stop the workers, heal everything, wait for a full ensemble,
 * check, and write the run's directory ({@link RunReport}).
 */
public final class ChaosRun {

    private static final Duration START_TIMEOUT = Duration.ofSeconds(120);
    private static final Duration RECOVERY_TIMEOUT = Duration.ofSeconds(120);
    /** A fault is held for half of the hold time to all of it: 8 s, less in runs shorter than 20 s. */
    private static final long MAX_HOLD_MS = 8_000;

    private final RunConfig config;
    private final List<FaultWindow> windows = Collections.synchronizedList(new ArrayList<>());
    private final List<String> notes = Collections.synchronizedList(new ArrayList<>());
    private volatile boolean stopped;
    private volatile long deadline;
    private final CountDownLatch stop = new CountDownLatch(1);

    public ChaosRun(RunConfig config) {
        this.config = config;
    }

    /** Runs, writes the report and returns it; throws only if the ensemble could not be started at all. */
    public RunReport run() throws Exception {
        Path dir = config.out().resolve(config.label());
        deleteRecursively(dir);
        Files.createDirectories(dir);
        ServerFlavor flavor = config.system().equals("zkr") ? new ServerFlavor.Zkr() : new ServerFlavor.ZooKeeper();
        String unavailable = flavor.unavailableReason();
        if (unavailable != null) {
            throw new IllegalStateException(unavailable);
        }
        Workload workload = Workloads.create(config.workload(), config.system());
        Clients clients = new Clients(config.system());
        List<String> anomalies = new ArrayList<>();
        History history;
        long end = 0;
        long t0 = System.nanoTime();
        SlowFsync slowFsync = byName(NemesisKind.SLOW_FSYNC) ? SlowFsync.prepare(dir.resolve("slow-fsync")) : null;
        ServerProcess.environment(slowFsync == null ? Map.of() : slowFsync.environment());
        int spares = spares();
        if (spares > 0) {
            notes.add(spares + " spare servers for replace-member (static observers, not started)");
        }
        try (Cluster cluster = Cluster.start(config.system(), config.servers(), spares, dir, START_TIMEOUT);
             ClientNetwork clientNet = clientFaults() ? ClientNetwork.build(workload.workers(config.workers()),
                     cluster.ensemble().members().stream().map(m -> m.clientPort()).toList()) : null) {
            notes.add("ensemble up in " + millisSince(t0) + " ms");
            history = new History(System.nanoTime());
            List<ZkClient> open = Collections.synchronizedList(new ArrayList<>());
            try {
                ZkClient admin = clients.open(cluster.ensemble().connectString());
                open.add(admin);
                workload.setup(new Worker(-1, admin, new Random(config.seed()), history, () -> stopped,
                        config.system(), cluster.ensemble().connectString()));
                List<Thread> workers = startWorkers(workload, clients, cluster, clientNet, history, open);
                deadline = System.nanoTime() + config.time().toNanos();
                Random nemesisRandom = new Random(config.seed());
                Nemesis faults = new Nemesis(cluster, nemesisRandom, clientNet, () -> Holders.latest(history.ops()),
                        slowFsync);
                Thread nemesis = startNemesis(cluster, history, faults, nemesisRandom);
                stop.await(config.time().toMillis(), TimeUnit.MILLISECONDS);
                stopped = true;
                end = history.now();
                stop.countDown();
                nemesis.join();
                anomalies.addAll(faults.problems());
                long t1 = System.nanoTime();
                for (Thread t : workers) {
                    t.join(Worker.CALL_TIMEOUT_MS + 10_000);
                    if (t.isAlive()) {
                        notes.add("worker " + t.getName() + " still busy after the run; left running");
                    }
                }
                notes.add("workers done " + millisSince(t1) + " ms after the stop");
                cluster.healAll();
                if (clientNet != null) {
                    clientNet.heal();
                }
                if (slowFsync != null) {
                    slowFsync.heal();
                }
                long t2 = System.nanoTime();
                boolean whole = false;
                try {
                    cluster.ensemble().awaitFull(RECOVERY_TIMEOUT);
                    notes.add("ensemble whole " + millisSince(t2) + " ms after healing");
                    whole = true;
                } catch (RuntimeException e) {
                    anomalies.add("ensemble not whole " + RECOVERY_TIMEOUT.toSeconds() + " s after healing: "
                            + e.getMessage());
                }
                if (whole) {
                    long t3 = System.nanoTime();
                    try {
                        anomalies.addAll(workload.check(history, finalReads(cluster, clients, open)));
                    } catch (Exception | AssertionError e) {
                        anomalies.add("the checks could not read the healed ensemble: " + e);
                    }
                    notes.add("checked in " + millisSince(t3) + " ms");
                }
            } finally {
                try {
                    workload.close();
                } catch (RuntimeException e) {
                    notes.add("closing the workload: " + e);
                }
                for (ZkClient c : open) {
                    try {
                        c.close();
                    } catch (RuntimeException ignored) {
                        // closing a client of a dead ensemble
                    }
                }
            }
        }
        RunReport report = new RunReport(config, dir, history, end, List.copyOf(windows), anomalies,
                List.copyOf(notes), workload);
        report.write();
        return report;
    }

    /**
     * The spares the run's replacements may start: one per fault the run can hold with {@code replace-member}
     * alone, 2 in a mixed zkr run (its replacements are one draw in {@link NemesisKind#FAULTS}'s size), else none.
     * A mixed ZooKeeper run has none: its spares would need reconfigEnabled, which cannot run behind the per-link
     * proxies its partitions need ({@link Cluster}), so its replacements do nothing and say so.
     */
    private int spares() {
        if (config.nemesis().equals("mix")) {
            return config.system().equals("zkr") ? 2 : 0;
        }
        if (NemesisKind.parse(config.nemesis()) != NemesisKind.REPLACE_MEMBER) {
            return 0;
        }
        long shortestCycle = maxHold() * 3 / 4;
        return (int) Math.min(10, config.time().toMillis() / shortestCycle + 1);
    }

    /** How long a fault is held at most: 8 s, less in runs shorter than 20 s. */
    private long maxHold() {
        return Math.max(1_000, Math.min(MAX_HOLD_MS, config.time().toMillis() * 2 / 5));
    }

    /** Whether the workers run behind client proxies: with the client nemesis (asked for by name, not in mix). */
    private boolean clientFaults() {
        return byName(NemesisKind.CUT_CLIENT);
    }

    /** Whether the run's nemesis is {@code kind} (the by-name-only kinds need their setup before the run). */
    private boolean byName(NemesisKind kind) {
        return !config.nemesis().equals("mix") && NemesisKind.parse(config.nemesis()) == kind;
    }

    private List<Thread> startWorkers(Workload workload, Clients clients, Cluster cluster, ClientNetwork clientNet,
                                      History history, List<ZkClient> open) {
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < workload.workers(config.workers()); i++) {
            int index = i;
            String connectString = clientNet != null ? clientNet.connectString(i) : rotated(cluster, i);
            ZkClient client = clients.open(connectString);
            open.add(client);
            Worker w = new Worker(index, client, new Random(config.seed() * 1_000_003L + index), history,
                    () -> stopped, config.system(), connectString);
            Thread t = new Thread(() -> {
                try {
                    workload.work(w);
                } catch (Exception | AssertionError e) {
                    notes.add("worker " + index + " ended early: " + e);
                }
            }, "worker-" + i);
            t.setDaemon(true);
            t.start();
            threads.add(t);
        }
        return threads;
    }

    /**
     * Every server (the spares too: a client must find the members that replace those it knew), starting with
     * voter {@code i mod n}, the spares last: workers spread over the voters.
     */
    private static String rotated(Cluster cluster, int i) {
        List<String> hosts = new ArrayList<>();
        int n = cluster.voters();
        for (int k = 0; k < n; k++) {
            hosts.add(cluster.ensemble().connectString((i + k) % n));
        }
        for (int spare = n; spare < cluster.size(); spare++) {
            hosts.add(cluster.ensemble().connectString(spare));
        }
        return String.join(",", hosts);
    }

    private Thread startNemesis(Cluster cluster, History history, Nemesis nemesis, Random random) {
        boolean mixed = config.nemesis().equals("mix");
        NemesisKind fixed = mixed ? null : NemesisKind.parse(config.nemesis());
        long maxHold = maxHold();
        long sessionMs = Clients.SESSION_TIMEOUT.toMillis();
        // a client cut lasts 1.25-1.75 session timeouts: its session expires while it is cut off
        long longest = fixed == NemesisKind.CUT_CLIENT ? sessionMs * 7 / 4 : maxHold;
        Thread t = new Thread(() -> {
            try {
                while (!stopped) {
                    if (waitOrStop(maxHold / 4 + random.nextInt((int) maxHold / 4))
                            || System.nanoTime() + longest * 1_000_000 > deadline) {
                        break; // no fault that could not be held and healed before the clients stop
                    }
                    NemesisKind kind = mixed ? NemesisKind.FAULTS.get(random.nextInt(NemesisKind.FAULTS.size()))
                            : fixed;
                    if (kind == NemesisKind.NONE) {
                        continue;
                    }
                    long start = history.now();
                    Fault fault;
                    try {
                        fault = nemesis.inject(kind);
                    } catch (RuntimeException e) {
                        notes.add("could not inject " + kind.cliName() + ": " + e);
                        continue;
                    }
                    waitOrStop(kind == NemesisKind.CUT_CLIENT ? sessionMs * 5 / 4 + random.nextInt((int) sessionMs / 2)
                            : maxHold / 2 + random.nextInt((int) maxHold / 2));
                    fault.heal();
                    windows.add(new FaultWindow(kind.cliName(), fault.describe(), start, history.now()));
                    if (kind == NemesisKind.TORN_TAIL || kind == NemesisKind.CORRUPT_TAIL) {
                        // a damaged disk is outside the failure model unless the member is whole again before
                        // the next fault: wait for it to rejoin (and so re-copy what it lost)
                        try {
                            cluster.ensemble().awaitFull(RECOVERY_TIMEOUT);
                        } catch (RuntimeException e) {
                            notes.add("after " + fault.describe() + ": " + e.getMessage()
                                    + "; no further faults in this run");
                            break;
                        }
                    }
                }
            } catch (RuntimeException e) {
                notes.add("nemesis stopped: " + e);
            }
        }, "nemesis");
        t.setDaemon(true);
        t.start();
        return t;
    }

    private static long millisSince(long nanos) {
        return (System.nanoTime() - nanos) / 1_000_000;
    }

    /** Waits {@code millis} or until the run stops; true if it stopped. */
    private boolean waitOrStop(long millis) {
        try {
            return stop.await(millis, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return true;
        }
    }

    private static FinalReads finalReads(Cluster cluster, Clients clients, List<ZkClient> open) {
        List<Integer> members = cluster.active();
        ZkClient[] perMember = new ZkClient[members.size()];
        for (int k = 0; k < members.size(); k++) {
            perMember[k] = clients.open(cluster.ensemble().connectString(members.get(k)));
            open.add(perMember[k]);
        }
        return new FinalReads() {
            @Override
            public int servers() {
                return perMember.length;
            }

            @Override
            public ZkClient on(int i) {
                return perMember[i];
            }

            @Override
            public int id(int i) {
                return cluster.ensemble().id(members.get(i));
            }
        };
    }

    static void deleteRecursively(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (var walk = Files.walk(dir)) {
            walk.sorted(java.util.Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.delete(p);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        }
    }
}
