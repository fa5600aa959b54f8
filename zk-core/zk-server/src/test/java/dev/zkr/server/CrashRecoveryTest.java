package dev.zkr.server;

import dev.zkr.client.CreateMode;
import dev.zkr.client.Op;
import dev.zkr.wire.Message;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A server in a child JVM is killed with SIGKILL in the middle of a burst of pipelined writes; after a restart every
 * acknowledged write is there and no multi is half-applied. Then the newest snapshot and the log tail are damaged
 * on purpose: the server still starts, says so in one log line, and serves.
 */
class CrashRecoveryTest {

    private static final Pattern LISTENING = Pattern.compile("zkr server listening on [^:]+:(\\d+) ");

    @TempDir
    Path tmp;
    private final List<Process> processes = new ArrayList<>();

    @AfterEach
    void killAll() {
        for (Process p : processes) {
            p.destroyForcibly();
        }
    }

    /** A started child server: its process, port and log file. */
    record Child(Process process, int port, Path log) {
        String logText() {
            try {
                return Files.readString(log);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    private Child startChild(Path dataDir, String name) throws IOException {
        Path log = tmp.resolve(name + ".log");
        ProcessBuilder pb = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m", "-Dorg.slf4j.simpleLogger.defaultLogLevel=info",
                "-cp", System.getProperty("java.class.path"), ZkServerMain.class.getName(),
                "--port", "0", "--data-dir", dataDir.toString(), "--tick", "200", "--snapshot-interval", "700");
        pb.redirectError(log.toFile());
        Process p = pb.start();
        processes.add(p);
        BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        String line;
        while ((line = out.readLine()) != null) {
            Matcher m = LISTENING.matcher(line);
            if (m.find()) {
                return new Child(p, Integer.parseInt(m.group(1)), log);
            }
        }
        throw new AssertionError("child server did not start: " + Files.readString(log));
    }

    @Test
    void acknowledgedWritesSurviveKillMinus9AndDamagedFilesAreSurvived() throws Exception {
        Path data = tmp.resolve("data");
        Child first = startChild(data, "first");

        // ---- burst of pipelined creates and multis, killed in the middle ----
        Map<Integer, String> sent = new ConcurrentHashMap<>();
        List<String> acked = java.util.Collections.synchronizedList(new ArrayList<>());
        AtomicInteger multisSent = new AtomicInteger();
        Semaphore window = new Semaphore(200);
        RawClient burst = RawClient.session(first.port(), 10_000);
        Thread reader = new Thread(() -> {
            try {
                while (true) {
                    Message m = burst.receive();
                    if (m instanceof Message.Reply r) {
                        String path = sent.remove(r.xid());
                        if (r.code() == 0 && path != null) {
                            acked.add(path);
                        }
                        window.release();
                    }
                }
            } catch (RuntimeException closed) {
                window.release(1000);
            }
        });
        reader.start();
        byte[] payload = new byte[100];
        Thread writer = new Thread(() -> {
            try {
                for (int i = 0; ; i++) {
                    window.acquire();
                    int x = burst.nextXid();
                    if (i % 10 == 0) {
                        int k = multisSent.getAndIncrement();
                        sent.put(x, "multi:" + k);
                        burst.send(new Message.MultiRequest(x, new Op[]{
                                Op.create("/ma-" + k, payload, CreateMode.PERSISTENT),
                                Op.create("/mb-" + k, payload, CreateMode.PERSISTENT)}));
                    } else {
                        sent.put(x, "/c-" + i);
                        burst.send(new Message.CreateRequest(x, "/c-" + i, payload, CreateMode.PERSISTENT));
                    }
                }
            } catch (InterruptedException | RuntimeException stopped) {
                // the server died
            }
        });
        writer.start();
        ServerFixture.await("2500 acknowledged writes", java.time.Duration.ofSeconds(60), () -> acked.size() >= 2500);
        first.process().destroyForcibly();
        assertTrue(first.process().waitFor(10, TimeUnit.SECONDS));
        writer.join(10_000);
        reader.join(10_000);
        burst.close();
        List<String> acknowledged = List.copyOf(acked);

        // ---- restart: every acknowledged write, no half multi ----
        Child second = startChild(data, "second");
        verify(second.port(), acknowledged, multisSent.get());
        second.process().destroy(); // SIGTERM: clean shutdown through the hook
        assertTrue(second.process().waitFor(20, TimeUnit.SECONDS), "clean shutdown on SIGTERM");

        // ---- damaged newest snapshot: falls back to an older one (or the log) ----
        Path snapshots = data.resolve("snapshots");
        Path newest = newestFile(snapshots, "snapshot.");
        assertNotNull(newest, "the burst should have produced snapshots");
        flipByteInTheMiddle(newest);
        Child third = startChild(data, "third");
        verify(third.port(), acknowledged, multisSent.get());
        assertTrue(third.logText().contains("damaged snapshot"), third.logText());
        third.process().destroy();
        assertTrue(third.process().waitFor(20, TimeUnit.SECONDS));

        // ---- torn log tail: truncated with one warning, then serves ----
        Path segment = newestFile(data.resolve("log"), "log.");
        long size = Files.size(segment);
        try (var ch = java.nio.channels.FileChannel.open(segment, java.nio.file.StandardOpenOption.WRITE)) {
            ch.truncate(size - 7);
        }
        Child fourth = startChild(data, "fourth");
        String log = fourth.logText();
        assertTrue(log.contains("Truncated torn tail"), log);
        try (RawClient c = RawClient.session(fourth.port(), 10_000)) {
            assertEquals(0, c.call(x -> new Message.CreateRequest(x, "/after-damage", new byte[]{1},
                    CreateMode.PERSISTENT)).code());
            assertEquals(0, c.call(x -> new Message.GetDataRequest(x, "/after-damage", false)).code());
        }
        fourth.process().destroy();
        assertTrue(fourth.process().waitFor(20, TimeUnit.SECONDS));
    }

    private static void verify(int port, List<String> acknowledged, int multis) {
        try (RawClient c = RawClient.session(port, 10_000)) {
            List<String> paths = new ArrayList<>();
            for (int k = 0; k < multis; k++) {
                paths.add("/ma-" + k);
                paths.add("/mb-" + k);
            }
            for (String path : acknowledged) {
                if (!path.startsWith("multi:")) {
                    paths.add(path);
                }
            }
            java.util.Set<String> present = existing(c, paths);
            List<String> missing = new ArrayList<>();
            for (String path : acknowledged) {
                if (path.startsWith("multi:")) {
                    String k = path.substring(6);
                    if (!present.contains("/ma-" + k) || !present.contains("/mb-" + k)) {
                        missing.add(path);
                    }
                } else if (!present.contains(path)) {
                    missing.add(path);
                }
            }
            assertTrue(missing.isEmpty(), "acknowledged writes lost: " + missing);
            for (int k = 0; k < multis; k++) {
                assertEquals(present.contains("/ma-" + k), present.contains("/mb-" + k), "half-applied multi " + k);
            }
            assertFalse(acknowledged.isEmpty());
        }
    }

    /** The paths that exist, asked with pipelined exists requests (200 at a time). */
    private static java.util.Set<String> existing(RawClient c, List<String> paths) {
        java.util.Set<String> present = new java.util.HashSet<>();
        for (int from = 0; from < paths.size(); from += 200) {
            List<String> chunk = paths.subList(from, Math.min(paths.size(), from + 200));
            int first = c.nextXid();
            for (int i = 1; i < chunk.size(); i++) {
                c.nextXid();
            }
            for (int i = 0; i < chunk.size(); i++) {
                c.send(new Message.ExistsRequest(first + i, chunk.get(i), false));
            }
            for (int i = 0; i < chunk.size(); i++) {
                Message.Reply r = c.reply(first + i);
                if (((Message.StatBody) r.body()).stat() != null) {
                    present.add(chunk.get(i));
                }
            }
        }
        return present;
    }

    private static Path newestFile(Path dir, String prefix) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(p -> p.getFileName().toString().startsWith(prefix)
                            && !p.getFileName().toString().endsWith(".tmp"))
                    .max(java.util.Comparator.comparing(p -> Long.parseUnsignedLong(
                            p.getFileName().toString().substring(prefix.length()), 16)))
                    .orElse(null);
        }
    }

    private static void flipByteInTheMiddle(Path file) throws IOException {
        byte[] bytes = Files.readAllBytes(file);
        bytes[bytes.length / 2] ^= 0x5A;
        Files.write(file, bytes);
    }
}
