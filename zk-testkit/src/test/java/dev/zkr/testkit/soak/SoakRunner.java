package dev.zkr.testkit.soak;

import dev.zkr.client.ConnectionState;
import dev.zkr.client.CreateMode;
import dev.zkr.client.NodeData;
import dev.zkr.client.Stat;
import dev.zkr.client.ZkClient;
import dev.zkr.client.ZkException;
import dev.zkr.testkit.TestEnsemble;

import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * Runs a soak of a 3-server {@link TestEnsemble} under repeated kills: writer clients (some connected to one server,
 * some to all) create named and sequential nodes (async, pipelined) and increment counters with conditional setData
 * (sync) while a killer kills the leader (or now and then a follower) every few seconds (seeded) and restarts it
 * after a seeded delay, never more than one server down. Every acknowledged write goes to a {@link SoakLedger}; a
 * write answered with connection loss is resolved as a real client does (sync, read back, retry only if absent) or
 * counted indeterminate. At the end every server is checked against the ledger ({@link #check()}).
 */
final class SoakRunner {

    /**
     * How long and how hard: {@code kills} = 0 kills until {@code duration} ends, else exactly that many kills (then
     * the run ends once the duration is over too); {@code leaderShare} the fraction of kills aimed at the leader.
     */
    record Settings(Duration duration, long seed, Duration reportEvery, int kills, double leaderShare,
                    Duration minInterval, Duration maxInterval, Duration minDown, Duration maxDown,
                    int writesPerSecond, PrintStream out) {

        /** The long soak: kills every 3-8 s (3 of 4 at the leader), down 0.5-3 s, reports every minute. */
        static Settings soak(Duration duration, long seed, PrintStream out) {
            return new Settings(duration, seed, Duration.ofMinutes(1), 0, 0.75, Duration.ofSeconds(3),
                    Duration.ofSeconds(8), Duration.ofMillis(500), Duration.ofSeconds(3), 40, out);
        }
    }

    /** The figures of a run and the verdict of the final check. */
    record Report(Duration ran, long acked, long connectionLosses, long indeterminate, int lost, GapClock.Stats gaps,
                  long sessionsLost, long errors, long leaderlessWaits, List<String> violations) {

        boolean clean() {
            return lost == 0 && sessionsLost == 0 && violations.isEmpty();
        }

        String table() {
            StringBuilder sb = new StringBuilder();
            sb.append("soak result (").append(ran.toSeconds()).append(" s, 3 servers)\n");
            row(sb, "writes acknowledged", Long.toString(acked));
            row(sb, "writes answered connection loss", Long.toString(connectionLosses));
            row(sb, "  of them still indeterminate", Long.toString(indeterminate));
            row(sb, "writes lost", Integer.toString(lost));
            row(sb, "leader kills", Integer.toString(gaps.leaderKills()));
            row(sb, "follower kills", Integer.toString(gaps.followerKills()));
            row(sb, "write gap after a kill, median", gaps.medianMs() + " ms");
            row(sb, "write gap after a kill, p99", gaps.p99Ms() + " ms");
            row(sb, "write gap after a kill, max", gaps.maxMs() + " ms");
            row(sb, "kills without a gap measured", Integer.toString(gaps.open()));
            row(sb, "sessions lost", Long.toString(sessionsLost));
            row(sb, "other request errors", Long.toString(errors));
            row(sb, "10 s waits for a leader", Long.toString(leaderlessWaits));
            row(sb, "violations", Integer.toString(violations.size()));
            for (String v : violations.subList(0, Math.min(20, violations.size()))) {
                sb.append("  ").append(v).append('\n');
            }
            return sb.toString();
        }

        private static void row(StringBuilder sb, String name, String value) {
            sb.append(String.format("  %-32s %12s%n", name, value));
        }
    }

    static final String ROOT = "/soak";
    private static final Duration SESSION_TIMEOUT = Duration.ofSeconds(15);
    private static final int WINDOW = 8;
    private static final int BUCKET = 1000;
    private static final List<String> COUNTERS = List.of(ROOT + "/counter/c0", ROOT + "/counter/c1",
            ROOT + "/counter/c2");

    private final TestEnsemble ensemble;
    private final Settings settings;
    private final SoakLedger ledger = new SoakLedger();
    private final GapClock gaps = new GapClock();
    private final AtomicBoolean stop = new AtomicBoolean();
    private final AtomicLong sessionsLost = new AtomicLong();
    private final AtomicLong errors = new AtomicLong();
    private final AtomicLong leaderlessWaits = new AtomicLong(); // 10 s waits for a leader before a kill
    private final AtomicLong connectionLosses = new AtomicLong(); // writes answered with an uncertain error
    private final List<Writer> writers = new ArrayList<>();
    private final List<String> runViolations = new ArrayList<>();
    private long startNanos;
    private long endNanos;

    SoakRunner(TestEnsemble ensemble, Settings settings) {
        if (ensemble.size() != 3) {
            throw new IllegalArgumentException("the soak runs on 3 servers, not " + ensemble.size());
        }
        this.ensemble = ensemble;
        this.settings = settings;
    }

    SoakLedger ledger() {
        return ledger;
    }

    /** Runs the workload and the kills for the settings' duration, heals, lets writers finish, then checks. */
    Report run() throws Exception {
        ensemble.leader();
        setUpTree();
        writers.add(new CreateWriter("n0", 0, false));
        writers.add(new CreateWriter("s1", 1, true));
        writers.add(new CreateWriter("n2", 2, false));
        writers.add(new CreateWriter("sa", -1, true));
        writers.add(new CounterWriter("ca", -1, 0));
        writers.add(new CounterWriter("cb", -1, 1));
        writers.add(new CounterWriter("c1", 1, 2));
        List<Thread> threads = new ArrayList<>();
        for (Writer w : writers) {
            Thread t = new Thread(w, "soak-writer-" + w.name);
            t.setDaemon(true);
            threads.add(t);
        }
        ScheduledExecutorService reporter = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "soak-reporter");
            t.setDaemon(true);
            return t;
        });
        startNanos = System.nanoTime();
        threads.forEach(Thread::start);
        long every = settings.reportEvery().toMillis();
        reporter.scheduleAtFixedRate(this::report, every, every, TimeUnit.MILLISECONDS);
        try {
            killLoop();
        } finally {
            reporter.shutdownNow();
            for (int i = 0; i < 3; i++) {
                if (!ensemble.isRunning(i)) {
                    ensemble.restart(i);
                }
            }
            ensemble.heal();
            stop.set(true);
            for (Thread t : threads) {
                t.join(Duration.ofMinutes(5).toMillis());
                if (t.isAlive()) {
                    runViolations.add(t.getName() + " did not finish within 5 minutes of the end of the soak");
                }
            }
            endNanos = System.nanoTime();
        }
        for (Writer w : writers) {
            if (w.initialSession != w.client.sessionId()) {
                runViolations.add("writer " + w.name + " changed session: 0x" + Long.toHexString(w.initialSession)
                        + " -> 0x" + Long.toHexString(w.client.sessionId()));
            }
        }
        return check();
    }

    /** Checks every server against the ledger (each through its own client, after a sync) and against server 0. */
    Report check() throws Exception {
        int lost = 0;
        List<String> violations = new ArrayList<>(runViolations);
        SoakLedger.View first = null;
        for (int i = 0; i < 3; i++) {
            SoakLedger.View view;
            try (ZkClient c = ZkClient.builder().connectString(ensemble.connectString(i))
                    .sessionTimeout(SESSION_TIMEOUT).connectTimeout(Duration.ofSeconds(60)).build()) {
                retry(() -> {
                    c.sync(ROOT);
                    return null;
                });
                view = TreeReader.read(c, ROOT);
            }
            SoakLedger.Verdict v = ledger.check("server " + i, view);
            lost = Math.max(lost, v.lost());
            violations.addAll(v.violations());
            if (first == null) {
                first = view;
            } else if (!first.equals(view)) {
                violations.add("server " + i + " differs from server 0 ("
                        + differences(first, view) + ")");
            }
        }
        List<String> unique = violations.stream().distinct().toList();
        return new Report(Duration.ofNanos(endNanos - startNanos), ledger.acked(), connectionLosses.get(),
                ledger.indeterminate(), lost, gaps.stats(), sessionsLost.get(), errors.get(), leaderlessWaits.get(),
                unique);
    }

    private static String differences(SoakLedger.View a, SoakLedger.View b) {
        int only = 0;
        for (String p : a.nodes().keySet()) {
            if (!b.nodes().containsKey(p)) {
                only++;
            }
        }
        int extra = 0;
        for (String p : b.nodes().keySet()) {
            if (!a.nodes().containsKey(p)) {
                extra++;
            }
        }
        return only + " nodes only on server 0, " + extra + " nodes only here, counters "
                + (a.counters().equals(b.counters()) ? "equal" : a.counters() + " vs " + b.counters());
    }

    // ---- the killer -------------------------------------------------------------------------------------------

    private void killLoop() {
        Random random = new Random(settings.seed());
        long deadline = startNanos + settings.duration().toNanos();
        int done = 0;
        while (true) {
            boolean timeUp = System.nanoTime() >= deadline;
            boolean enoughKills = settings.kills() > 0 && done >= settings.kills();
            if (timeUp && (settings.kills() == 0 || enoughKills)) {
                return;
            }
            if (enoughKills) {
                pause(Math.min(100_000_000L, deadline - System.nanoTime()));
                continue;
            }
            pause(between(random, settings.minInterval(), settings.maxInterval()));
            if (settings.kills() == 0 && System.nanoTime() >= deadline) {
                return;
            }
            boolean atLeader = random.nextDouble() < settings.leaderShare();
            int leader = awaitLeader();
            int victim = atLeader ? leader : (leader + 1 + random.nextInt(2)) % 3;
            long down = between(random, settings.minDown(), settings.maxDown());
            gaps.killed(victim, atLeader, System.nanoTime());
            ensemble.kill(victim);
            done++;
            pause(down);
            ensemble.restart(victim);
        }
    }

    /** The leader's index; a wait of over 10 s is counted (an availability figure), over a minute fails the run. */
    private int awaitLeader() {
        for (int attempt = 1; ; attempt++) {
            try {
                return ensemble.leader();
            } catch (IllegalStateException e) {
                leaderlessWaits.incrementAndGet();
                settings.out().println("soak: " + e.getMessage());
                if (attempt == 6) {
                    throw e;
                }
            }
        }
    }

    private static long between(Random random, Duration min, Duration max) {
        long lo = min.toNanos();
        return lo + (long) (random.nextDouble() * (max.toNanos() - lo));
    }

    /** Pacing of the killer (not a synchronisation: nothing is awaited). */
    private static void pause(long nanos) {
        long until = System.nanoTime() + nanos;
        long left;
        while ((left = until - System.nanoTime()) > 0) {
            LockSupport.parkNanos(left);
        }
    }

    private void report() {
        GapClock.Stats s = gaps.stats();
        long secs = Duration.ofNanos(System.nanoTime() - startNanos).toSeconds();
        settings.out().printf("soak %4d s: acked %d, connection loss %d (indeterminate %d), leader kills %d, "
                        + "follower kills %d, gap median %d ms max %d ms, sessions lost %d, errors %d, roles %s%n",
                secs, ledger.acked(), connectionLosses.get(), ledger.indeterminate(), s.leaderKills(),
                s.followerKills(), s.medianMs(), s.maxMs(), sessionsLost.get(), errors.get(), ensemble.roles());
    }

    // ---- setup and helpers ------------------------------------------------------------------------------------

    private void setUpTree() throws Exception {
        try (ZkClient c = ZkClient.builder().connectString(ensemble.connectString()).sessionTimeout(SESSION_TIMEOUT)
                .connectTimeout(Duration.ofSeconds(60)).build()) {
            for (String p : List.of(ROOT, ROOT + "/named", ROOT + "/seq", ROOT + "/counter")) {
                createIfAbsent(c, p, new byte[0]);
            }
            for (String counter : COUNTERS) {
                createIfAbsent(c, counter, bytes("0 init"));
            }
        }
    }

    interface Call<T> {
        T run() throws Exception;
    }

    /** Retries a call answered with connection loss (the caller made it safe to repeat). */
    static <T> T retry(Call<T> call) throws Exception {
        for (int attempt = 1; ; attempt++) {
            try {
                return call.run();
            } catch (ZkException.ConnectionLoss | ZkException.OperationTimeout | ZkException.RequestTimeout e) {
                if (attempt == 2000) { // 100 s: longer than any kill leaves a server down
                    throw e;
                }
                pause(50_000_000L); // back-off before trying again, as a client does
            }
        }
    }

    static void createIfAbsent(ZkClient c, String path, byte[] data) throws Exception {
        retry(() -> {
            try {
                return c.create(path, data, CreateMode.PERSISTENT);
            } catch (ZkException.NodeExists e) {
                return path; // an earlier attempt answered with connection loss did happen
            }
        });
    }

    static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    static String string(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }

    private static Throwable unwrap(Throwable t) {
        return t instanceof CompletionException && t.getCause() != null ? t.getCause() : t;
    }

    /** Errors after which a write may or may not have happened. */
    private static boolean uncertain(Throwable t) {
        return t instanceof ZkException.ConnectionLoss || t instanceof ZkException.OperationTimeout
                || t instanceof ZkException.RequestTimeout || t instanceof ZkException.SessionMoved
                || t instanceof ZkException.SessionExpired;
    }

    // ---- writers ----------------------------------------------------------------------------------------------

    /** A client and its thread: runs {@link #step()} until the soak stops, then {@link #finish()}. */
    private abstract class Writer implements Runnable {
        final String name;
        final int server;
        final ZkClient client;
        final long initialSession;
        private final long pacingNanos;
        private long nextNanos = System.nanoTime();
        int n;

        Writer(String name, int server, int writesPerSecond) {
            this.name = name;
            this.server = server;
            this.pacingNanos = writesPerSecond <= 0 ? 0 : 1_000_000_000L / writesPerSecond;
            this.client = ensemble.newClient(b -> b
                    .connectString(server < 0 ? ensemble.connectString() : ensemble.connectString(server))
                    .sessionTimeout(SESSION_TIMEOUT).connectTimeout(Duration.ofSeconds(60)));
            this.initialSession = client.sessionId();
            client.addConnectionStateListener((c, state) -> {
                if (state == ConnectionState.LOST) {
                    sessionsLost.incrementAndGet();
                }
            });
        }

        @Override
        public void run() {
            try {
                while (!stop.get()) {
                    step();
                }
                finish();
            } catch (Exception | AssertionError e) {
                synchronized (runViolations) {
                    runViolations.add("writer " + name + " failed: " + e);
                }
                e.printStackTrace(settings.out());
            }
        }

        abstract void step() throws Exception;

        abstract void finish() throws Exception;

        /** Keeps this writer at its rate (pacing, not synchronisation). */
        void pace() {
            if (pacingNanos == 0) {
                return;
            }
            nextNanos = Math.max(nextNanos + pacingNanos, System.nanoTime() - 1_000_000_000L);
            pause(nextNanos - System.nanoTime());
        }

        /** After a connection loss: wait (bounded) until the client is connected again before the next try. */
        void backOff() {
            long until = System.nanoTime() + 2_000_000_000L;
            do {
                pause(20_000_000L);
            } while (!client.state().isConnected() && System.nanoTime() < until);
        }

        void unexpected(String what, Throwable t) {
            errors.incrementAndGet();
            ledger.clientViolation("writer " + name + ": " + what + " failed with " + t);
        }
    }

    /** Creates named (n-&lt;k&gt;) or protected sequential (s-&lt;token&gt;-&lt;seq&gt;) nodes, WINDOW in flight. */
    private final class CreateWriter extends Writer {
        private final boolean sequential;
        private final String base;
        private final Semaphore window = new Semaphore(WINDOW);
        private final ConcurrentLinkedQueue<String[]> uncertain = new ConcurrentLinkedQueue<>(); // path, token, dir
        private int bucketNo = -1;
        private String bucket;

        CreateWriter(String name, int server, boolean sequential) throws Exception {
            super(name, server, settings.writesPerSecond());
            this.sequential = sequential;
            this.base = ROOT + (sequential ? "/seq/" : "/named/") + name;
            createIfAbsent(client, base, new byte[0]);
        }

        @Override
        void step() throws Exception {
            resolveUncertain();
            pace();
            if (n / BUCKET != bucketNo) {
                bucketNo = n / BUCKET;
                bucket = base + "/b" + bucketNo;
                createIfAbsent(client, bucket, new byte[0]);
            }
            String token = name + "-" + n++;
            String path = sequential ? bucket + "/s-" + token + "-" : bucket + "/" + token;
            String parent = bucket;
            window.acquire();
            long issued = System.nanoTime();
            client.createAsync(path, bytes(token), sequential ? CreateMode.PERSISTENT_SEQUENTIAL
                    : CreateMode.PERSISTENT).whenComplete((created, err) -> {
                        try {
                            if (err == null) {
                                ledger.ackedNode(created.path(), token);
                                gaps.acked(server, issued, System.nanoTime());
                            } else if (uncertain(unwrap(err))) {
                                connectionLosses.incrementAndGet();
                                uncertain.add(new String[] {path, token, parent});
                            } else {
                                unexpected("create " + path, unwrap(err));
                            }
                        } finally {
                            window.release();
                        }
                    });
        }

        @Override
        void finish() throws Exception {
            window.acquire(WINDOW); // every create in flight answered
            window.release(WINDOW);
            resolveUncertain();
        }

        private void resolveUncertain() throws Exception {
            String[] a;
            while ((a = uncertain.poll()) != null) {
                resolve(a[0], a[1], a[2]);
            }
        }

        /** Sync, look for the node; if absent create it again (absent after a sync: it can no longer appear). */
        private void resolve(String path, String token, String parent) throws Exception {
            while (true) {
                try {
                    client.sync(parent);
                    String found = sequential ? findProtected(parent, token) : existing(path);
                    if (found != null) {
                        String data = string(client.getData(found).data());
                        if (data.equals(token)) {
                            ledger.ackedNode(found, token);
                        } else {
                            ledger.clientViolation(found + " holds " + data + ", written as " + token);
                        }
                        return;
                    }
                    try {
                        String created = client.create(path, bytes(token), sequential
                                ? CreateMode.PERSISTENT_SEQUENTIAL : CreateMode.PERSISTENT);
                        ledger.ackedNode(created, token);
                        return;
                    } catch (ZkException.NodeExists e) {
                        // the first attempt landed after all: read it back on the next round
                    }
                } catch (ZkException.SessionExpired e) {
                    ledger.recordIndeterminate();
                    return;
                } catch (ZkException e) {
                    if (!uncertain(e)) {
                        unexpected("resolving " + path, e);
                        return;
                    }
                    backOff();
                }
            }
        }

        private String existing(String path) {
            return client.exists(path) != null ? path : null;
        }

        private String findProtected(String parent, String token) {
            String prefix = "s-" + token + "-";
            for (String child : client.getChildren(parent)) {
                if (child.startsWith(prefix)) {
                    return parent + "/" + child;
                }
            }
            return null;
        }
    }

    /** Increments a counter: read, then setData(value + 1, version); sync, one at a time. */
    private final class CounterWriter extends Writer {
        private final String counter;

        CounterWriter(String name, int server, int counter) {
            super(name, server, 0);
            this.counter = COUNTERS.get(counter);
        }

        @Override
        void step() throws Exception {
            NodeData d;
            try {
                d = client.getData(counter);
            } catch (ZkException e) {
                if (!uncertain(e)) {
                    unexpected("getData " + counter, e);
                }
                backOff();
                return;
            }
            int version = d.stat().version();
            int value = Integer.parseInt(string(d.data()).split(" ", 2)[0]);
            String token = name + "-" + n++;
            String data = (value + 1) + " " + token;
            long issued = System.nanoTime();
            try {
                Stat s = client.setData(counter, bytes(data), version);
                ledger.ackedCounter(counter, s.version(), token);
                gaps.acked(server, issued, System.nanoTime());
                if (s.version() != version + 1) {
                    ledger.clientViolation(counter + " set at version " + version + " answered version "
                            + s.version());
                }
            } catch (ZkException.BadVersion e) {
                // another writer incremented first: read again
            } catch (ZkException e) {
                if (!uncertain(e)) {
                    unexpected("setData " + counter, e);
                    return;
                }
                connectionLosses.incrementAndGet();
                backOff();
                resolve(version, token);
            }
        }

        /** After connection loss: sync and read; our token at version + 1 means it happened. */
        private void resolve(int version, String token) {
            while (true) {
                try {
                    client.sync(counter);
                    NodeData d = client.getData(counter);
                    if (d.stat().version() == version + 1 && string(d.data()).endsWith(" " + token)) {
                        ledger.ackedCounter(counter, version + 1, token);
                    } else if (d.stat().version() > version + 1) {
                        ledger.recordIndeterminate(); // it may have happened and been overwritten since
                    } // else it did not happen (after a sync it no longer can)
                    return;
                } catch (ZkException e) {
                    if (!uncertain(e) || e instanceof ZkException.SessionExpired) {
                        ledger.recordIndeterminate();
                        return;
                    }
                    backOff();
                }
            }
        }

        @Override
        void finish() {
        }
    }

    /** Reads the soak tree of one server. */
    static final class TreeReader {
        private TreeReader() {
        }

        static SoakLedger.View read(ZkClient c, String root) throws Exception {
            Map<String, String> nodes = new ConcurrentHashMap<>();
            for (String kind : List.of("/named", "/seq")) {
                for (String writer : retry(() -> c.getChildren(root + kind))) {
                    String wdir = root + kind + "/" + writer;
                    for (String b : retry(() -> c.getChildren(wdir))) {
                        String bdir = wdir + "/" + b;
                        readAll(c, bdir, retry(() -> c.getChildren(bdir)), nodes);
                    }
                }
            }
            Map<String, SoakLedger.Counter> counters = new HashMap<>();
            for (String child : retry(() -> c.getChildren(root + "/counter"))) {
                String p = root + "/counter/" + child;
                NodeData d = retry(() -> c.getData(p));
                counters.put(p, new SoakLedger.Counter(d.stat().version(), string(d.data())));
            }
            return new SoakLedger.View(new HashMap<>(nodes), counters);
        }

        private static void readAll(ZkClient c, String dir, List<String> children, Map<String, String> into)
                throws Exception {
            Semaphore window = new Semaphore(256);
            ConcurrentLinkedQueue<String> failed = new ConcurrentLinkedQueue<>();
            for (String child : children) {
                String p = dir + "/" + child;
                window.acquire();
                c.getDataAsync(p, null).whenComplete((d, err) -> {
                    if (err == null) {
                        into.put(p, string(d.data()));
                    } else {
                        failed.add(p);
                    }
                    window.release();
                });
            }
            window.acquire(256);
            for (String p : failed) {
                into.put(p, string(retry(() -> c.getData(p)).data()));
            }
        }
    }
}
