package dev.zkr.server;

import dev.zkr.client.AddWatchMode;
import dev.zkr.client.CreateMode;
import dev.zkr.client.Op;
import dev.zkr.client.ZkClient;
import dev.zkr.client.ZkException;
import dev.zkr.wire.Message;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 10 soak (not part of {@code mvn verify}; run with {@code mvn -B -o -Psoak -pl zk-core test}): one server in
 * a child JVM under an abusive mix — ephemeral bombs, slow readers, connection floods, oversized multis, garbage —
 * while a well-behaved client writes, reads back and times its requests. Prints the server's RSS and heap over
 * time, the good client's p50/p99 and the number of acknowledged writes missing at the end (must be 0).
 * Duration: {@code -Dzkr.soak.seconds} (default 180); {@code -Dzkr.soak.abuse=false} runs the good client alone
 * (the baseline on the same machine), {@code -Dzkr.soak.abuse=bomb,flood} only the listed components (bomb, slow,
 * churn, flood, multi, garbage) to find which one hurts; {@code -Dzkr.soak.target=other} sends the abuse to a
 * second server process instead (a control: what is left is the machine's load, not the abused server).
 */
class AbuseSoak {

    private static final Pattern LISTENING = Pattern.compile("listening on [^:]+:(\\d+)");

    @TempDir
    Path tmp;

    private final AtomicBoolean stop = new AtomicBoolean();
    private final Map<String, AtomicLong> counters = new ConcurrentHashMap<>();

    private void count(String what) {
        counters.computeIfAbsent(what, k -> new AtomicLong()).incrementAndGet();
    }

    @Test
    void serverStaysUpAndBoundedUnderAbuse() throws Exception {
        int seconds = Integer.getInteger("zkr.soak.seconds", 180);
        Path data = tmp.resolve("data");
        Path log = tmp.resolve("server.log");
        Process server = startServer(data, log);
        int goodPort = awaitPort(server, log);
        String goodConnect = "127.0.0.1:" + goodPort;
        // -Dzkr.soak.target=other: the abuse goes to a second server process, a control that tells the machine's
        // load (both clients share the CPUs) from what the abused server does to its good client
        Process other = "other".equals(System.getProperty("zkr.soak.target"))
                ? startServer(tmp.resolve("other-data"), tmp.resolve("other.log")) : null;
        int port = other == null ? goodPort : awaitPort(other, tmp.resolve("other.log"));
        String connect = "127.0.0.1:" + port;
        if (other != null) {
            try (ZkClient c = ZkClient.connect(connect, Duration.ofSeconds(10))) {
                c.create("/churn", new byte[0], CreateMode.PERSISTENT);
            }
        }
        List<Thread> threads = new ArrayList<>();
        try (ZkClient good = ZkClient.builder().connectString(goodConnect).sessionTimeout(Duration.ofSeconds(30))
                .build()) {
            good.create("/good", new byte[0], CreateMode.PERSISTENT);
            if (other == null) {
                good.create("/churn", new byte[0], CreateMode.PERSISTENT);
            }
            java.util.Set<String> abuse = abuseComponents();
            System.out.println("soak: abuse components " + abuse);
            if (abuse.contains("bomb")) {
                threads.add(start("bomb", () -> ephemeralBomb(connect)));
            }
            if (abuse.contains("slow")) {
                threads.add(start("slow", () -> slowReaders(port)));
            }
            if (abuse.contains("churn")) {
                threads.add(start("churn", () -> churn(connect)));
            }
            if (abuse.contains("flood")) {
                threads.add(start("flood", () -> connectionFlood(port)));
            }
            if (abuse.contains("multi")) {
                threads.add(start("multi", () -> oversizedMultis(port)));
            }
            if (abuse.contains("garbage")) {
                threads.add(start("garbage", () -> garbage(port)));
            }

            List<Long> latenciesMicros = new ArrayList<>();
            List<Long> createMicros = new ArrayList<>(); // the write path: prep, the shared log's fsync, apply
            List<Long> readMicros = new ArrayList<>();   // the read path: event loops and rounds, no log
            Map<String, Integer> acked = new java.util.HashMap<>();
            long end = System.nanoTime() + seconds * 1_000_000_000L;
            long nextSample = 0;
            int i = 0;
            System.out.println("soak: t(s)  serverRSS(MiB)  serverHeapUsed(MiB)  goodWrites  p99(ms)");
            while (System.nanoTime() < end) {
                if (System.nanoTime() > nextSample) {
                    nextSample = System.nanoTime() + 10_000_000_000L;
                    System.out.printf("soak: %4d  %8d  %8d  %8d  %7.2f%n",
                            seconds - (end - System.nanoTime()) / 1_000_000_000L, rssMiB(server.pid()),
                            heapUsedMiB(server.pid()), acked.size(), percentile(latenciesMicros, 0.99) / 1000.0);
                }
                byte[] value = ("v" + i).getBytes(StandardCharsets.UTF_8);
                long t0 = System.nanoTime();
                try {
                    String path = good.create("/good/n", value, CreateMode.PERSISTENT_SEQUENTIAL);
                    long t1 = System.nanoTime();
                    acked.put(path, i);
                    good.getData(path);
                    long t2 = System.nanoTime();
                    latenciesMicros.add((t2 - t0) / 1000);
                    createMicros.add((t1 - t0) / 1000);
                    readMicros.add((t2 - t1) / 1000);
                } catch (ZkException e) {
                    count("good client error " + e.code());
                }
                i++;
            }
            stop.set(true);
            for (Thread t : threads) {
                t.join(30_000);
            }
            int lost = 0;
            for (Map.Entry<String, Integer> e : acked.entrySet()) {
                byte[] d = good.getData(e.getKey()).data();
                if (!Arrays.equals(("v" + e.getValue()).getBytes(StandardCharsets.UTF_8), d)) {
                    lost++;
                }
            }
            System.out.printf("soak: %d s; good client %d acknowledged writes, %d lost; create+getData p50 %.2f ms,"
                            + " p99 %.2f ms, max %.2f ms; server RSS %d MiB, heap used %d MiB%n", seconds,
                    acked.size(), lost, percentile(latenciesMicros, 0.5) / 1000.0,
                    percentile(latenciesMicros, 0.99) / 1000.0, percentile(latenciesMicros, 1.0) / 1000.0,
                    rssMiB(server.pid()), heapUsedMiB(server.pid()));
            System.out.printf("soak: create alone p50 %.2f ms, p99 %.2f ms; getData alone p50 %.2f ms, p99 %.2f ms%n",
                    percentile(createMicros, 0.5) / 1000.0, percentile(createMicros, 0.99) / 1000.0,
                    percentile(readMicros, 0.5) / 1000.0, percentile(readMicros, 0.99) / 1000.0);
            System.out.println("soak: abuse counters " + new java.util.TreeMap<>(counters));
            long closes = Files.readAllLines(log).stream().filter(l -> l.contains("closing connection")
                    || l.contains("refusing connection")).count();
            System.out.println("soak: server log lines closing/refusing connections: " + closes + " of "
                    + Files.readAllLines(log).size() + " lines in all");
            assertTrue(server.isAlive(), "server still running");
            assertEquals(0, lost, "acknowledged writes lost");
            assertTrue(Files.readAllLines(log).stream().noneMatch(l -> l.contains("OutOfMemoryError")
                    || l.contains("stops serving")), "no OOM, pipeline never stopped");
        } finally {
            stop.set(true);
            server.destroyForcibly().waitFor();
            if (other != null) {
                other.destroyForcibly().waitFor();
            }
        }
    }

    private static Process startServer(Path data, Path log) throws java.io.IOException {
        return new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx512m", "-XX:MaxDirectMemorySize=256m", "-cp", System.getProperty("java.class.path"),
                ZkServerMain.class.getName(), "--port", "0", "--data-dir", data.toString(),
                "--max-outbound-bytes-total", String.valueOf(128L << 20), "--slow-reader-timeout", "2000",
                "--max-ephemerals-per-session", "20000")
                .redirectError(log.toFile()).start();
    }

    /** {@code -Dzkr.soak.abuse}: true (default: all), false (none: the baseline) or a comma list of components. */
    private static java.util.Set<String> abuseComponents() {
        List<String> all = List.of("bomb", "slow", "churn", "flood", "multi", "garbage");
        String v = System.getProperty("zkr.soak.abuse", "true").trim();
        if (v.equals("true")) {
            return new java.util.TreeSet<>(all);
        }
        java.util.Set<String> chosen = new java.util.TreeSet<>();
        for (String c : v.split(",")) {
            if (all.contains(c.trim())) {
                chosen.add(c.trim());
            } else if (!c.isBlank() && !c.trim().equals("false")) {
                throw new IllegalArgumentException("unknown abuse component " + c + "; known: " + all);
            }
        }
        return chosen;
    }

    private Thread start(String name, Runnable body) {
        Thread t = new Thread(() -> {
            while (!stop.get()) {
                try {
                    body.run();
                } catch (RuntimeException | AssertionError e) {
                    count(name + " " + e.getClass().getSimpleName());
                }
            }
        }, "soak-" + name);
        t.setDaemon(true);
        t.start();
        return t;
    }

    /** A session piles up ephemerals with 1 KB paths until its cap, then closes (or is dropped). */
    private void ephemeralBomb(String connect) {
        try (ZkClient c = ZkClient.builder().connectString(connect).sessionTimeout(Duration.ofSeconds(4)).build()) {
            String prefix = "/bomb-" + Long.toHexString(c.sessionId()) + "-" + "b".repeat(1000);
            List<java.util.concurrent.CompletableFuture<?>> batch = new ArrayList<>();
            for (int i = 0; i < 25_000 && !stop.get(); i++) {
                batch.add(c.createAsync(prefix + i, new byte[0], CreateMode.EPHEMERAL)
                        .exceptionally(e -> {
                            count("bomb refused " + e.getCause().getClass().getSimpleName());
                            return null;
                        }));
                if (batch.size() == 200) {
                    java.util.concurrent.CompletableFuture.allOf(batch.toArray(
                            new java.util.concurrent.CompletableFuture<?>[0])).join();
                    batch.clear();
                }
            }
            count("bomb sessions");
        }
    }

    /** Watches everything and reads nothing; also pipelines reads it never takes. */
    private void slowReaders(int port) {
        List<RawClient> slow = new ArrayList<>();
        try {
            for (int i = 0; i < 5; i++) {
                RawClient c = RawClient.session(port, 30_000);
                c.call(x -> new Message.AddWatchRequest(x, "/", AddWatchMode.PERSISTENT_RECURSIVE));
                for (int j = 0; j < 200; j++) {
                    c.send(new Message.GetDataRequest(c.nextXid(), "/good", false));
                }
                slow.add(c);
            }
            for (RawClient c : slow) {
                if (c.closedByServer(60_000)) { // it reads only to see when the server gave up on it
                    count("slow reader closed by server");
                }
            }
        } finally {
            slow.forEach(RawClient::close);
        }
    }

    /** Changes that fire the slow readers' watches. */
    private void churn(String connect) {
        try (ZkClient c = ZkClient.connect(connect, Duration.ofSeconds(10))) {
            byte[] big = new byte[512];
            while (!stop.get()) {
                List<java.util.concurrent.CompletableFuture<?>> batch = new ArrayList<>();
                for (int i = 0; i < 100; i++) {
                    batch.add(c.createAsync("/churn/" + "c".repeat(2000) + i, big, CreateMode.EPHEMERAL));
                }
                java.util.concurrent.CompletableFuture.allOf(batch.toArray(
                        new java.util.concurrent.CompletableFuture<?>[0])).join();
                batch.clear();
                for (int i = 0; i < 100; i++) {
                    batch.add(c.deleteAsync("/churn/" + "c".repeat(2000) + i, -1));
                }
                java.util.concurrent.CompletableFuture.allOf(batch.toArray(
                        new java.util.concurrent.CompletableFuture<?>[0])).join();
                count("churn rounds");
            }
        }
    }

    /** 200 sockets at once, no handshake, then gone. */
    private void connectionFlood(int port) {
        List<Socket> sockets = new ArrayList<>();
        try {
            for (int i = 0; i < 200; i++) {
                Socket s = new Socket();
                s.connect(new InetSocketAddress("127.0.0.1", port), 5000);
                sockets.add(s);
            }
            count("flood rounds");
        } catch (java.io.IOException e) {
            count("flood refused");
        } finally {
            for (Socket s : sockets) {
                try {
                    s.close();
                } catch (java.io.IOException ignored) {
                    // closing
                }
            }
        }
    }

    /** A multi bigger than a frame (closed by the server) and one of many small ops (refused or applied). */
    private void oversizedMultis(int port) {
        try (RawClient c = RawClient.session(port, 10_000)) {
            Op[] ops = new Op[3000];
            for (int i = 0; i < ops.length; i++) {
                ops[i] = Op.create("/m" + i, new byte[700], CreateMode.PERSISTENT);
            }
            c.send(new Message.MultiRequest(c.nextXid(), ops));
            if (c.closedByServer(30_000)) {
                count("oversized multi closed");
            }
        }
    }

    /** Random bytes instead of the protocol. */
    private void garbage(int port) {
        Random r = new Random(42);
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 5000);
            byte[] junk = new byte[4096];
            r.nextBytes(junk);
            OutputStream out = s.getOutputStream();
            out.write(junk);
            out.flush();
            s.setSoTimeout(10_000);
            s.getInputStream().readAllBytes();
            count("garbage closed");
        } catch (java.io.IOException e) {
            count("garbage closed");
        }
    }

    private static int awaitPort(Process p, Path log) throws Exception {
        BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        String line;
        while ((line = out.readLine()) != null) {
            Matcher m = LISTENING.matcher(line);
            if (m.find()) {
                return Integer.parseInt(m.group(1));
            }
        }
        throw new AssertionError("server did not start: " + Files.readString(log));
    }

    private static long rssMiB(long pid) {
        try {
            for (String l : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
                if (l.startsWith("VmRSS:")) {
                    return Long.parseLong(l.replaceAll("[^0-9]", "")) / 1024;
                }
            }
        } catch (java.io.IOException e) {
            return -1;
        }
        return -1;
    }

    /** Heap used per {@code jstat -gc} (survivors + eden + old), or -1. */
    private static long heapUsedMiB(long pid) {
        try {
            Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "jstat").toString(),
                    "-gc", String.valueOf(pid)).redirectErrorStream(true).start();
            List<String> lines = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).lines()
                    .toList();
            p.waitFor();
            String[] head = lines.get(0).trim().split("\\s+");
            String[] vals = lines.get(1).trim().split("\\s+");
            double kb = 0;
            for (int i = 0; i < head.length; i++) {
                if (List.of("S0U", "S1U", "EU", "OU").contains(head[i])) {
                    kb += Double.parseDouble(vals[i]);
                }
            }
            return (long) (kb / 1024);
        } catch (Exception e) {
            return -1;
        }
    }

    private static double percentile(List<Long> values, double q) {
        if (values.isEmpty()) {
            return 0;
        }
        long[] sorted = values.stream().mapToLong(Long::longValue).sorted().toArray();
        return sorted[Math.min(sorted.length - 1, (int) Math.ceil(q * sorted.length) - 1 < 0 ? 0
                : (int) Math.ceil(q * sorted.length) - 1)];
    }
}
