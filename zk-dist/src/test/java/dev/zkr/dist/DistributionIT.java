package dev.zkr.dist;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The tarball as a user gets it: unpacked, {@code bin/zkr-server start} on the shipped config (port changed to a
 * free one), {@code bin/zkr} creating, reading and listing nodes, {@code status}, {@code stop}; then
 * {@code foreground} and SIGTERM. Runs after {@code package} (failsafe), on real processes.
 */
class DistributionIT {

    @TempDir
    static Path dir;

    static Path home;
    static int port;
    static int adminPort;

    @BeforeAll
    static void unpack() throws Exception {
        Path tarball = Path.of(System.getProperty("zkr.dist.tarball"));
        assertTrue(Files.isRegularFile(tarball), "no tarball at " + tarball);
        assertEquals(0, run(dir, Map.of(), "tar", "xzf", tarball.toString()).exit);
        home = dir.resolve("zkr-" + System.getProperty("zkr.dist.version"));
        for (String f : new String[] {"bin/zkr-server", "bin/zkr", "conf/zkr.properties",
                "conf/simplelogger.properties", "systemd/zkr.service", "README.md"}) {
            assertTrue(Files.exists(home.resolve(f)), f + " missing");
        }
        assertTrue(Files.isExecutable(home.resolve("bin/zkr-server")), "bin/zkr-server not executable");
        try (var libs = Files.list(home.resolve("lib"))) {
            List<String> names = libs.map(p -> p.getFileName().toString()).toList();
            assertTrue(names.stream().anyMatch(n -> n.startsWith("zk-server")), names.toString());
            assertTrue(names.stream().anyMatch(n -> n.startsWith("zk-cli")), names.toString());
            assertTrue(names.stream().anyMatch(n -> n.startsWith("slf4j-simple")), names.toString());
        }
        try (ServerSocket s = new ServerSocket(0); ServerSocket a = new ServerSocket(0)) {
            port = s.getLocalPort();
            adminPort = a.getLocalPort();
        }
        Path conf = home.resolve("conf/zkr.properties");
        String text = Files.readString(conf);
        assertTrue(text.contains("\nport=2181\n") && text.contains("\nadminPort=8080\n"), text);
        Files.writeString(conf, text.replace("\nport=2181\n", "\nport=" + port + "\n")
                .replace("\nadminPort=8080\n", "\nadminPort=" + adminPort + "\n"));
    }

    @Test
    void startUseWithTheCliStatusAndStop() throws Exception {
        Result start = run(home, Map.of("ZKR_HEAP", "256m"), "bin/zkr-server", "start");
        assertEquals(0, start.exit, start.out);
        assertTrue(start.out.contains("zkr server listening on 127.0.0.1:" + port), start.out);
        try {
            assertEquals(0, run(home, Map.of(), "bin/zkr-server", "status").exit);
            String server = "127.0.0.1:" + port;
            Result create = run(home, Map.of(), "bin/zkr", "--server", server, "create", "/app", "hello world");
            assertEquals(0, create.exit, create.out);
            Result get = run(home, Map.of(), "bin/zkr", "--server", server, "get", "/app");
            assertEquals(0, get.exit, get.out);
            assertTrue(get.out.contains("hello world"), get.out);
            Result missing = run(home, Map.of(), "bin/zkr", "--server", server, "get", "/nope");
            assertTrue(missing.exit != 0, "a missing node is an error: " + missing.out);
            HttpClient http = HttpClient.newHttpClient();
            HttpResponse<String> metrics = http.send(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + adminPort + "/metrics")).build(), BodyHandlers.ofString());
            assertEquals(200, metrics.statusCode());
            assertTrue(metrics.body().contains("# TYPE "), "Prometheus text format: " + metrics.body());
            HttpResponse<String> health = http.send(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + adminPort + "/health")).build(), BodyHandlers.ofString());
            assertEquals(200, health.statusCode(), health.body());
            Path log = home.resolve("logs/zkr-server.log");
            assertTrue(Files.readString(log).contains("zkr server listening on"), "the server's output is logged");
            assertTrue(Files.isDirectory(home.resolve("data")), "the relative dataDir lies under the distribution");
        } finally {
            Result stop = run(home, Map.of(), "bin/zkr-server", "stop");
            assertEquals(0, stop.exit, stop.out);
        }
        Result status = run(home, Map.of(), "bin/zkr-server", "status");
        assertEquals(3, status.exit, status.out);
        assertTrue(status.out.contains("not running"), status.out);
    }

    @Test
    void foregroundRunsUntilSigterm() throws Exception {
        Path conf = dir.resolve("fg.properties");
        int fgPort;
        try (ServerSocket s = new ServerSocket(0)) {
            fgPort = s.getLocalPort();
        }
        Files.writeString(conf, "dataDir=" + dir.resolve("fg-data") + "\nport=" + fgPort + "\n");
        ProcessBuilder pb = new ProcessBuilder(home.resolve("bin/zkr-server").toString(), "foreground",
                conf.toString()).redirectErrorStream(true);
        pb.environment().put("ZKR_HEAP", "256m");
        Process p = pb.start();
        try {
            var reader = new java.io.BufferedReader(new java.io.InputStreamReader(p.getInputStream(),
                    StandardCharsets.UTF_8));
            String line;
            boolean listening = false;
            while ((line = reader.readLine()) != null) {
                if (line.contains("zkr server listening on 127.0.0.1:" + fgPort)) {
                    listening = true;
                    break;
                }
            }
            assertTrue(listening, "foreground server never listened");
            Result ls = run(home, Map.of(), "bin/zkr", "--server", "127.0.0.1:" + fgPort, "ls", "/");
            assertEquals(0, ls.exit, ls.out);
            p.destroy(); // SIGTERM to the JVM the script exec'd
            assertTrue(p.waitFor(60, TimeUnit.SECONDS), "no exit after SIGTERM");
        } finally {
            p.destroyForcibly();
        }
    }

    record Result(int exit, String out) {
    }

    static Result run(Path cwd, Map<String, String> env, String... cmd) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(cmd));
        ProcessBuilder pb = new ProcessBuilder(command).directory(cwd.toFile()).redirectErrorStream(true);
        pb.environment().putAll(env);
        Process p = pb.start();
        byte[] out = p.getInputStream().readAllBytes();
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IllegalStateException(String.join(" ", cmd) + " did not finish");
        }
        return new Result(p.exitValue(), new String(out, StandardCharsets.UTF_8));
    }
}
