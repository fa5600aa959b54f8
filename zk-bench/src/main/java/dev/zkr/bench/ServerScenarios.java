package dev.zkr.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;

/** The server scenarios: raw znode operations through each server's own client, same load for both. */
final class ServerScenarios {

    static final Duration CONNECT = Duration.ofSeconds(15);
    static final int CLIENTS = 4;
    static final int IN_FLIGHT = 200;
    static final int READ_KEYS = 1000;

    /** Issues one async operation of the load. */
    @FunctionalInterface
    interface Issue {
        void issue(KvClient client, int clientIndex, long seq, KvClient.Callback callback);
    }

    private ServerScenarios() {
    }

    static byte[] payload() {
        byte[] b = new byte[100];
        for (int i = 0; i < b.length; i++) {
            b[i] = (byte) ('a' + i % 26);
        }
        return b;
    }

    /** Async PERSISTENT_SEQUENTIAL creates of 100 B, 4 clients × 200 in flight: creates/s. */
    static Measurement asyncCreates(ServerFlavor flavor, ClientPlacement placement, String root, Window window) {
        byte[] data = payload();
        try (KvClient setup = flavor.connect(placement.connectString(0), CONNECT)) {
            for (int k = 0; k < CLIENTS; k++) {
                setup.ensurePath(root + "/create/c" + k, new byte[0]);
            }
        }
        java.util.concurrent.atomic.LongAdder acknowledged = new java.util.concurrent.atomic.LongAdder();
        Measurement m = asyncLoad(flavor, placement, window,
                (c, k, seq, cb) -> c.createAsync(root + "/create/c" + k + "/n-", data, true, error -> {
                    if (error == null) {
                        acknowledged.increment();
                    }
                    cb.done(error);
                }));
        if (!m.ok()) {
            return m;
        }
        // the server must hold every create it acknowledged: guards against counting what was never written (an
        // ensemble member read by a new session may lag behind the others for a moment: asked until it agrees)
        long stored = 0;
        long deadline = System.nanoTime() + CONNECT.toNanos();
        try (KvClient check = flavor.connect(placement.connectString(0), CONNECT)) {
            while (true) {
                stored = 0;
                for (int k = 0; k < CLIENTS; k++) {
                    stored += check.childCount(root + "/create/c" + k);
                }
                if (stored >= acknowledged.sum() || System.nanoTime() > deadline) {
                    break;
                }
                ServerProcess.pause(20);
            }
        }
        if (stored != acknowledged.sum()) {
            return Measurement.failed("server holds " + stored + " nodes but acknowledged " + acknowledged.sum());
        }
        return m;
    }

    /** How many children the create scenario left under {@code root} (what an ensemble then holds). */
    static long createdUnder(KvClient c, String root) {
        long n = 0;
        for (int k = 0; k < CLIENTS; k++) {
            n += c.childCount(root + "/create/c" + k);
        }
        return n;
    }

    /** Async getData of 100 B nodes (1,000 keys round robin), 4 clients × 200 in flight: reads/s. */
    static Measurement asyncReads(ServerFlavor flavor, ClientPlacement placement, String root, Window window) {
        return asyncReads(flavor, placement, CLIENTS, root, window);
    }

    /** As {@link #asyncReads(ServerFlavor, ClientPlacement, String, Window)} with {@code clients} clients. */
    static Measurement asyncReads(ServerFlavor flavor, ClientPlacement placement, int clients, String root,
                                  Window window) {
        byte[] data = payload();
        try (KvClient setup = flavor.connect(placement.connectString(0), CONNECT)) {
            setup.ensurePath(root + "/get", new byte[0]);
            createAll(setup, READ_KEYS, IN_FLIGHT, i -> root + "/get/k" + i, data);
        }
        // every reader's server must have applied the keys (ensemble members may lag behind for a moment)
        for (int k = 1; k < clients; k++) {
            awaitVisible(flavor, placement.connectString(k), root + "/get/k" + (READ_KEYS - 1));
        }
        return asyncLoad(flavor, placement, clients, window,
                (c, k, seq, cb) -> c.getDataAsync(root + "/get/k" + ((seq * clients + k) % READ_KEYS), data.length, cb));
    }

    /** Blocking setData of 100 B with one client; latencies in the window. */
    static Latencies syncSetData(ServerFlavor flavor, ClientPlacement placement, String root, Window window) {
        byte[] data = payload();
        Latencies latencies = new Latencies();
        try (KvClient c = flavor.connect(placement.connectString(0), CONNECT)) {
            c.ensurePath(root + "/set", data);
            Workers.run("setdata", 1, window, w -> {
                while (!window.stopped()) {
                    long t0 = System.nanoTime();
                    c.setData(root + "/set", data);
                    long t = System.nanoTime() - t0;
                    if (window.measuring()) {
                        latencies.record(t);
                    }
                }
            });
        }
        if (window.failure() != null) {
            throw new IllegalStateException(describe(window.failure()), window.failure());
        }
        return latencies;
    }

    /**
     * The floor of every recipe handoff: session A deletes a node that session B watches; one sample is the time
     * from A's delete call until B's watch fires. A lock handoff, an election handover or a barrier step each cost
     * at least this (one fsynced write, then a notification to another session).
     */
    static Latencies deleteNotify(ServerFlavor flavor, String connectString, String root, Window window) {
        Latencies latencies = new Latencies();
        try (KvClient a = flavor.connect(connectString, CONNECT);
             KvClient b = flavor.connect(connectString, CONNECT)) {
            a.ensurePath(root + "/notify", new byte[0]);
            String node = root + "/notify/n";
            Workers.run("notify", 1, window, w -> {
                java.util.concurrent.BlockingQueue<Long> fired = new java.util.concurrent.LinkedBlockingQueue<>();
                while (!window.stopped()) {
                    a.ensurePath(node, new byte[0]);
                    if (!b.watchDeletion(node, () -> fired.offer(System.nanoTime()))) {
                        throw new IllegalStateException("watched node " + node + " is missing");
                    }
                    long t0 = System.nanoTime();
                    a.delete(node);
                    Long t1 = fired.poll(CONNECT.toMillis(), TimeUnit.MILLISECONDS);
                    if (t1 == null) {
                        throw new IllegalStateException("no deletion event within " + CONNECT);
                    }
                    if (window.measuring()) {
                        latencies.record(t1 - t0);
                    }
                }
            });
        }
        if (window.failure() != null) {
            throw new IllegalStateException(describe(window.failure()), window.failure());
        }
        return latencies;
    }

    /** Waits (up to {@link #CONNECT}) until a new session on {@code connectString} can read {@code path}. */
    static void awaitVisible(ServerFlavor flavor, String connectString, String path) {
        long deadline = System.nanoTime() + CONNECT.toNanos();
        try (KvClient c = flavor.connect(connectString, CONNECT)) {
            while (true) {
                try {
                    c.getData(path);
                    return;
                } catch (RuntimeException notYet) {
                    if (System.nanoTime() > deadline) {
                        throw new IllegalStateException(path + " not readable on " + connectString + " within "
                                + CONNECT + ": " + describe(notYet), notYet);
                    }
                    ServerProcess.pause(20);
                }
            }
        }
    }

    /** CLIENTS sessions (client k on {@code placement}'s server k), each keeping IN_FLIGHT async operations outstanding. */
    static Measurement asyncLoad(ServerFlavor flavor, ClientPlacement placement, Window window, Issue issue) {
        return asyncLoad(flavor, placement, CLIENTS, window, issue);
    }

    /** {@code n} sessions (client k on {@code placement}'s server k), each keeping IN_FLIGHT operations outstanding. */
    static Measurement asyncLoad(ServerFlavor flavor, ClientPlacement placement, int n, Window window, Issue issue) {
        List<KvClient> clients = new ArrayList<>();
        try {
            for (int k = 0; k < n; k++) {
                clients.add(flavor.connect(placement.connectString(k), CONNECT));
            }
            Workers.run("load", n, window, k -> {
                KvClient c = clients.get(k);
                Semaphore permits = new Semaphore(IN_FLIGHT);
                long seq = 0;
                while (!window.stopped()) {
                    if (!permits.tryAcquire(1, TimeUnit.SECONDS)) {
                        continue;
                    }
                    issue.issue(c, k, seq++, error -> {
                        if (error != null) {
                            window.fail(error);
                        } else {
                            window.count();
                        }
                        permits.release();
                    });
                }
                if (!permits.tryAcquire(IN_FLIGHT, 30, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("operations still outstanding 30 s after the window");
                }
            });
        } finally {
            clients.forEach(KvClient::close);
        }
        return window.failure() != null ? Measurement.failed(describe(window.failure()))
                : Measurement.of(window.throughput());
    }

    /** Creates n PERSISTENT nodes with up to inFlight outstanding creates; returns the elapsed nanoseconds. */
    static long createAll(KvClient c, int n, int inFlight, java.util.function.IntFunction<String> path, byte[] data) {
        Semaphore permits = new Semaphore(inFlight);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        long t0 = System.nanoTime();
        try {
            for (int i = 0; i < n && failure.get() == null; i++) {
                permits.acquire();
                c.createAsync(path.apply(i), data, false, error -> {
                    if (error != null) {
                        failure.compareAndSet(null, error);
                    }
                    permits.release();
                });
            }
            if (!permits.tryAcquire(inFlight, 60, TimeUnit.SECONDS)) {
                throw new IllegalStateException("creates still outstanding after 60 s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
        if (failure.get() != null) {
            throw new IllegalStateException("create failed: " + describe(failure.get()), failure.get());
        }
        return System.nanoTime() - t0;
    }

    /** The results of the big-tree scenario for one server. */
    record BigTree(Measurement createRate, Measurement heapMb, Measurement diskMb, Measurement restartSeconds,
                   Measurement snapshotSeconds) {
    }

    /**
     * Builds parents × children znodes of 100 B with 1,000 creates in flight, measures the server heap after a full
     * GC and the data dir size, then kills the server (kill -9) and times a new JVM on the same data dir until a
     * fresh client reads the last znode.
     */
    static BigTree bigTree(ServerFlavor flavor, int parents, int children, Path dataDir, Path logDir) {
        return bigTree(flavor, parents, children, payload(), dataDir, logDir, Duration.ofMinutes(5));
    }

    /**
     * As above with {@code data} in every child and a deadline for the restart; also reads how long the server's last
     * snapshot during the build took (its own log line: the snapshot of the biggest tree it wrote).
     */
    static BigTree bigTree(ServerFlavor flavor, int parents, int children, byte[] payload, Path dataDir, Path logDir,
                           Duration restartDeadline) {
        Measurement rate;
        Measurement heap;
        Measurement disk;
        Measurement restart;
        Measurement snapshot;
        String last = "/m/p" + (parents - 1) + "/c" + (children - 1);
        ServerProcess p = flavor.startServing(dataDir, logDir, flavor.name() + "-bigtree", Duration.ofSeconds(60));
        try {
            try (KvClient c = flavor.connect(p.connectString(), CONNECT)) {
                c.ensurePath("/m", new byte[0]);
                byte[] data = payload;
                long parentsNanos = createAll(c, parents, 1000, i -> "/m/p" + i, new byte[0]);
                long childrenNanos = createAll(c, parents * children, 1000,
                        i -> "/m/p" + (i / children) + "/c" + (i % children), data);
                rate = Measurement.of((parents + (double) parents * children) / ((parentsNanos + childrenNanos) / 1e9));
                c.getData(last);
                if (c.childCount("/m") != parents || c.childCount("/m/p" + (parents - 1)) != children) {
                    throw new IllegalStateException("the server does not hold the tree it acknowledged");
                }
            }
            heap = Measurement.of(p.settledHeapAfterFullGc() / 1048576.0);
            p.writeClassHistogram();
            disk = Measurement.of(directorySize(dataDir) / 1048576.0);
            String ms = flavor.snapshotMillis() == null ? null : p.lastLogMatch(flavor.snapshotMillis());
            snapshot = ms == null ? Measurement.failed("no snapshot logged") : Measurement.of(Long.parseLong(ms) / 1e3);
        } finally {
            p.kill();
        }
        long t0 = System.nanoTime();
        ServerProcess again = flavor.start(dataDir, ServerProcess.freePort(), logDir, flavor.name() + "-bigtree-restart");
        try {
            flavor.awaitServing(again, restartDeadline, last);
            restart = Measurement.of((System.nanoTime() - t0) / 1e9);
        } finally {
            again.kill();
        }
        return new BigTree(rate, heap, disk, restart, snapshot);
    }

    /** What sessions and watches cost a server: heap per session and per watch, in bytes. */
    record WatchMemory(Measurement bytesPerSession, Measurement bytesPerWatch) {
    }

    /**
     * Opens {@code sessions} sessions on a fresh server holding 1,000 znodes, then sets {@code watchesPerSession}
     * exists watches from each (session s watches nodes {@code s * watchesPerSession + j} modulo 1,000, so every node
     * has the same number of watchers); the server's live heap (class histogram total, after it is at rest) is read
     * before the sessions, after them and after the watches: the differences per session and per watch.
     */
    static WatchMemory watchMemory(ServerFlavor flavor, int sessions, int watchesPerSession, Path dataDir,
                                   Path logDir) {
        int nodes = 1000;
        List<KvClient> clients = new ArrayList<>();
        ServerProcess p = flavor.startServing(dataDir, logDir, flavor.name() + "-watches", Duration.ofSeconds(60));
        try {
            try (KvClient setup = flavor.connect(p.connectString(), CONNECT)) {
                setup.ensurePath("/w", new byte[0]);
                createAll(setup, nodes, 1000, i -> "/w/n" + i, new byte[0]);
            }
            p.settledHeapAfterFullGc(); // at rest
            long base = p.liveHeapBytes("base");
            for (int s = 0; s < sessions; s++) {
                clients.add(flavor.connect(p.connectString(), CONNECT));
            }
            p.settledHeapAfterFullGc();
            long withSessions = p.liveHeapBytes("sessions");
            for (int s = 0; s < sessions; s++) {
                for (int j = 0; j < watchesPerSession; j++) {
                    String path = "/w/n" + ((s * watchesPerSession + j) % nodes);
                    if (!clients.get(s).watchDeletion(path, () -> { })) {
                        throw new IllegalStateException("no node " + path);
                    }
                }
            }
            p.settledHeapAfterFullGc();
            long withWatches = p.liveHeapBytes("watches");
            return new WatchMemory(Measurement.of((withSessions - base) / (double) sessions),
                    Measurement.of((withWatches - withSessions) / ((double) sessions * watchesPerSession)));
        } finally {
            for (KvClient c : clients) {
                c.close();
            }
            p.kill();
        }
    }

    static long directorySize(Path dir) {
        try (Stream<Path> files = Files.walk(dir)) {
            return files.filter(Files::isRegularFile).mapToLong(f -> {
                try {
                    return Files.size(f);
                } catch (IOException e) {
                    return 0;
                }
            }).sum();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static String describe(Throwable t) {
        Throwable root = t;
        while (root.getCause() != null && root.getCause() != root
                && (root instanceof java.util.concurrent.CompletionException
                || root instanceof java.util.concurrent.ExecutionException)) {
            root = root.getCause();
        }
        String msg = root.getMessage();
        return root.getClass().getSimpleName() + (msg == null ? "" : ": " + msg);
    }
}
