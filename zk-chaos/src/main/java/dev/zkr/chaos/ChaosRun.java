package dev.zkr.chaos;

import dev.zkr.bench.ServerFlavor;
import dev.zkr.chaos.history.History;
import dev.zkr.chaos.nemesis.Fault;
import dev.zkr.chaos.nemesis.FaultWindow;
import dev.zkr.chaos.nemesis.Nemesis;
import dev.zkr.chaos.nemesis.NemesisKind;
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
        Workload workload = Workloads.create(config.workload());
        if (workload.unsupported(config.system()) != null) {
            throw new IllegalArgumentException(workload.unsupported(config.system()));
        }
        Clients clients = new Clients(config.system());
        List<String> anomalies = new ArrayList<>();
        History history;
        long end = 0;
        try (Cluster cluster = Cluster.start(flavor, config.servers(), dir, START_TIMEOUT)) {
            history = new History(System.nanoTime());
            List<ZkClient> open = Collections.synchronizedList(new ArrayList<>());
            try {
                ZkClient admin = clients.open(cluster.ensemble().connectString());
                open.add(admin);
                workload.setup(new Worker(-1, admin, new Random(config.seed()), history, () -> stopped,
                        config.system(), cluster.ensemble().connectString()));
                List<Thread> workers = startWorkers(workload, clients, cluster, history, open);
                deadline = System.nanoTime() + config.time().toNanos();
                Thread nemesis = startNemesis(cluster, history);
                stop.await(config.time().toMillis(), TimeUnit.MILLISECONDS);
                stopped = true;
                end = history.now();
                stop.countDown();
                nemesis.join();
                for (Thread t : workers) {
                    t.join(Worker.CALL_TIMEOUT_MS + 10_000);
                    if (t.isAlive()) {
                        notes.add("worker " + t.getName() + " still busy after the run; left running");
                    }
                }
                cluster.healAll();
                try {
                    cluster.ensemble().awaitFull(RECOVERY_TIMEOUT);
                } catch (RuntimeException e) {
                    anomalies.add("ensemble not whole " + RECOVERY_TIMEOUT.toSeconds() + " s after healing: "
                            + e.getMessage());
                }
                if (anomalies.isEmpty()) {
                    anomalies.addAll(workload.check(history, finalReads(cluster, clients, open)));
                }
            } finally {
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

    private List<Thread> startWorkers(Workload workload, Clients clients, Cluster cluster, History history,
                                      List<ZkClient> open) {
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < config.workers(); i++) {
            int index = i;
            String connectString = rotated(cluster, i);
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

    /** Every member, starting with member {@code i mod n}: workers spread over the servers. */
    private static String rotated(Cluster cluster, int i) {
        List<String> hosts = new ArrayList<>();
        int n = cluster.size();
        for (int k = 0; k < n; k++) {
            hosts.add(cluster.ensemble().connectString((i + k) % n));
        }
        return String.join(",", hosts);
    }

    private Thread startNemesis(Cluster cluster, History history) {
        Random random = new Random(config.seed());
        Nemesis nemesis = new Nemesis(cluster, random);
        boolean mixed = config.nemesis().equals("mix");
        NemesisKind fixed = mixed ? null : NemesisKind.parse(config.nemesis());
        long maxHold = Math.max(1_000, Math.min(MAX_HOLD_MS, config.time().toMillis() * 2 / 5));
        Thread t = new Thread(() -> {
            try {
                while (!stopped) {
                    if (waitOrStop(maxHold / 4 + random.nextInt((int) maxHold / 4))
                            || System.nanoTime() + maxHold * 1_000_000 > deadline) {
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
                    waitOrStop(maxHold / 2 + random.nextInt((int) maxHold / 2));
                    fault.heal();
                    windows.add(new FaultWindow(kind.cliName(), fault.describe(), start, history.now()));
                    if (kind == NemesisKind.TORN_TAIL || kind == NemesisKind.CORRUPT_TAIL) {
                        // a damaged disk is outside the failure model unless the member is whole again before
                        // the next fault: wait for it to rejoin (and so re-copy what it lost)
                        try {
                            cluster.ensemble().awaitFull(RECOVERY_TIMEOUT);
                        } catch (RuntimeException e) {
                            notes.add("after " + fault.describe() + ": " + e.getMessage());
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
        ZkClient[] perMember = new ZkClient[cluster.size()];
        for (int i = 0; i < cluster.size(); i++) {
            perMember[i] = clients.open(cluster.ensemble().connectString(i));
            open.add(perMember[i]);
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
                return cluster.ensemble().id(i);
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
