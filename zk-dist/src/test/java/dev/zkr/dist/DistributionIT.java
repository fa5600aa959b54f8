package dev.zkr.dist;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;
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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The tarball as a user gets it: unpacked, {@code bin/zkr-server start} on the shipped config (ports changed to
 * free ones; {@code ZKR_HEAP} on the JVM's command line), {@code bin/zkr} creating, reading and listing nodes,
 * {@code bin/zkr shell} fed from a pipe, the admin endpoint's /metrics, /health and console page at /; expected
 * client errors (missing node, stale version, bytes that are not the protocol, a reset mid-frame, a client killed
 * mid-session) leave no stack trace and at most two lines per bad connection in {@code logs/zkr-server.log};
 * {@code status}, {@code stop}; then {@code foreground} and SIGTERM. Runs after {@code package} (failsafe), on real
 * processes.
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
            heapComesFromZkrHeap("256m");
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
            consoleIsServedAtTheRoot(http);
            shellFedFromAPipe(server);
            expectedClientErrorsLogNoStackTraces(server, http, log);
        } finally {
            Result stop = run(home, Map.of(), "bin/zkr-server", "stop");
            assertEquals(0, stop.exit, stop.out);
        }
        Result status = run(home, Map.of(), "bin/zkr-server", "status");
        assertEquals(3, status.exit, status.out);
        assertTrue(status.out.contains("not running"), status.out);
    }

    /** export-zookeeper and import-zookeeper through bin/zkr-server: zkr data to ZooKeeper's format and back. */
    @Test
    void exportToZooKeeperAndImportBackThroughTheScript() throws Exception {
        Path data = dir.resolve("migrate-zkr");
        Path conf = configWithDataDir(data);
        Result start = run(home, Map.of("ZKR_HEAP", "256m"), "bin/zkr-server", "start", conf.toString());
        assertEquals(0, start.exit, start.out);
        String server = "127.0.0.1:" + portOf(conf);
        try {
            Result create = run(home, Map.of(), "bin/zkr", "--server", server, "create", "/moved", "across");
            assertEquals(0, create.exit, create.out);
        } finally {
            assertEquals(0, run(home, Map.of(), "bin/zkr-server", "stop").exit);
        }
        Path zk = dir.resolve("migrate-zk");
        Result export = run(dir, Map.of(), home.resolve("bin/zkr-server").toString(), "export-zookeeper",
                "--from", "migrate-zkr", "--to", "migrate-zk"); // relative to the caller's directory
        assertEquals(0, export.exit, export.out);
        assertTrue(export.out.contains("wrote ZooKeeper snapshot " + "migrate-zk/version-2/snapshot."), export.out);
        Path back = dir.resolve("migrate-back");
        Result imp = run(home, Map.of(), "bin/zkr-server", "import-zookeeper", "--from", zk.toString(), "--to",
                back.toString());
        assertEquals(0, imp.exit, imp.out);
        assertTrue(imp.out.contains("imported ZooKeeper data from"), imp.out);

        Path empty = Files.createDirectories(dir.resolve("migrate-empty"));
        Result bad = run(home, Map.of(), "bin/zkr-server", "import-zookeeper", "--from", empty.toString(), "--to",
                dir.resolve("migrate-nothing").toString());
        assertEquals(1, bad.exit, bad.out);
        assertTrue(bad.out.contains("no ZooKeeper data in") && bad.out.contains("nothing was written"), bad.out);
        assertTrue(!Files.exists(dir.resolve("migrate-nothing")));

        Path conf2 = configWithDataDir(back);
        start = run(home, Map.of("ZKR_HEAP", "256m"), "bin/zkr-server", "start", conf2.toString());
        assertEquals(0, start.exit, start.out);
        try {
            Result get = run(home, Map.of(), "bin/zkr", "--server", "127.0.0.1:" + portOf(conf2), "get", "/moved");
            assertEquals(0, get.exit, get.out);
            assertTrue(get.out.contains("across"), get.out);
        } finally {
            assertEquals(0, run(home, Map.of(), "bin/zkr-server", "stop").exit);
        }
    }

    /** A copy of conf/zkr.properties with this data directory and free ports. */
    private static Path configWithDataDir(Path data) throws IOException {
        String text = Files.readString(home.resolve("conf/zkr.properties"));
        int p;
        int a;
        try (ServerSocket s = new ServerSocket(0); ServerSocket t = new ServerSocket(0)) {
            p = s.getLocalPort();
            a = t.getLocalPort();
        }
        text = text.replaceAll("\\ndataDir=[^\\n]*\\n", "\n")
                .replaceAll("\\nport=[0-9]+\\n", "\n").replaceAll("\\nadminPort=[0-9]+\\n", "\n")
                + "\ndataDir=" + data + "\nport=" + p + "\nadminPort=" + a + "\n";
        Path conf = Files.createTempFile(dir, "migrate", ".properties");
        Files.writeString(conf, text);
        return conf;
    }

    private static int portOf(Path conf) throws IOException {
        java.util.Properties p = new java.util.Properties();
        try (var in = Files.newBufferedReader(conf)) {
            p.load(in);
        }
        return Integer.parseInt(p.getProperty("port"));
    }

    /** In the foreground from ZooKeeper's own conf/zoo_sample.cfg (its data dir and port moved), unchanged else. */
    @Test
    void foregroundRunsUntilSigterm() throws Exception {
        Path conf = dir.resolve("zoo.cfg");
        int fgPort;
        try (ServerSocket s = new ServerSocket(0)) {
            fgPort = s.getLocalPort();
        }
        Files.writeString(conf, "# The number of milliseconds of each tick\ntickTime=2000\n"
                + "# The number of ticks that the initial\n# synchronization phase can take\ninitLimit=10\n"
                + "# The number of ticks that can pass between\n# sending a request and getting an acknowledgement\n"
                + "syncLimit=5\n# the directory where the snapshot is stored.\ndataDir=" + dir.resolve("fg-data")
                + "\n# the port at which the clients will connect\nclientPort=" + fgPort + "\n"
                + "#maxClientCnxns=60\n#autopurge.snapRetainCount=3\n#autopurge.purgeInterval=1\n");
        List<String> notes = new java.util.ArrayList<>();
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
                if (line.startsWith("zkr: note: ")) {
                    notes.add(line);
                }
                if (line.contains("zkr server listening on 127.0.0.1:" + fgPort)) {
                    listening = true;
                    break;
                }
            }
            assertTrue(listening, "foreground server never listened");
            assertEquals(2, notes.size(), notes.toString());
            assertTrue(notes.get(0).startsWith("zkr: note: initLimit=10 is not used: "), notes.toString());
            assertTrue(notes.get(1).startsWith("zkr: note: syncLimit=5 is not used: "), notes.toString());
            Result ls = run(home, Map.of(), "bin/zkr", "--server", "127.0.0.1:" + fgPort, "ls", "/");
            assertEquals(0, ls.exit, ls.out);
            p.destroy(); // SIGTERM to the JVM the script exec'd
            assertTrue(p.waitFor(60, TimeUnit.SECONDS), "no exit after SIGTERM");
        } finally {
            p.destroyForcibly();
        }
    }

    /** The JVM that bin/zkr-server started runs with ZKR_HEAP as both -Xms and -Xmx. */
    private static void heapComesFromZkrHeap(String heap) throws IOException, InterruptedException {
        String pid = Files.readString(home.resolve("run/zkr-server.pid")).trim();
        Path cmdline = Path.of("/proc/" + pid + "/cmdline");
        List<String> args = Files.exists(cmdline) // Linux; elsewhere what ps shows, split at blanks
                ? List.of(Files.readString(cmdline).split("\0"))
                : List.of(run(home, Map.of(), "ps", "-o", "args=", "-p", pid).out.trim().split("\\s+"));
        assertTrue(args.contains("-Xmx" + heap) && args.contains("-Xms" + heap), args.toString());
        assertTrue(args.contains("dev.zkr.server.ZkServerMain"), args.toString());
    }

    /** The shipped config's admin endpoint serves the web console's page at /. */
    private static void consoleIsServedAtTheRoot(HttpClient http) throws IOException, InterruptedException {
        HttpResponse<String> page = http.send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + adminPort + "/")).build(), BodyHandlers.ofString());
        assertEquals(200, page.statusCode(), page.body());
        assertTrue(page.headers().firstValue("content-type").orElse("").startsWith("text/html"),
                page.headers().map().toString());
        assertTrue(page.body().contains("<title>zkr console</title>")
                && page.body().contains("<script src=\"console.js\""), page.body());
        HttpResponse<String> script = http.send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + adminPort + "/console.js")).build(), BodyHandlers.ofString());
        assertEquals(200, script.statusCode(), "the page's script is served too");
    }

    /** bin/zkr shell with its input from a pipe: quoting, one line after another, exit. */
    private static void shellFedFromAPipe(String server) throws IOException, InterruptedException {
        Path history = dir.resolve("shell-history");
        Result shell = runWithInput(home, Map.of("ZKR_HISTORY", history.toString()),
                "create /from-shell \"a b\"\nls /\nexit\n", "bin/zkr", "--server", server, "shell");
        assertEquals(0, shell.exit, shell.out);
        List<String> lines = shell.out.replace("\r", "").lines()
                .map(l -> l.replaceAll("^(zkr \\S+> )+", "")).toList();
        assertTrue(lines.contains("/from-shell"), "create printed the path: " + shell.out);
        assertTrue(lines.contains("app") && lines.contains("from-shell"), "ls / listed both nodes: " + shell.out);
        assertTrue(shell.out.contains("zkr " + server + "> "), "the prompt: " + shell.out);
        Result get = run(home, Map.of(), "bin/zkr", "--server", server, "get", "/from-shell");
        assertEquals("a b\n", get.out, "the quoted data arrived as one argument");
        assertTrue(Files.readString(history).contains("create /from-shell"), "the history went to $ZKR_HISTORY");
    }

    /**
     * Clients doing what clients do wrong — a missing node, a stale version, bytes that are not the protocol, a
     * socket reset mid-frame, a client killed mid-session — cost the server's log at most a line each and never a
     * stack trace.
     */
    private static void expectedClientErrorsLogNoStackTraces(String server, HttpClient http, Path log)
            throws Exception {
        Result missing = run(home, Map.of(), "bin/zkr", "--server", server, "get", "/missing");
        assertEquals(3, missing.exit, missing.out);
        Result stale = run(home, Map.of(), "bin/zkr", "--server", server, "set", "-v", "7", "/app", "stale");
        assertEquals(3, stale.exit, stale.out);

        // an HTTP request on the client port: its first 4 bytes read as a frame length of ~1.2 GB
        int http1 = garbage("GET / HTTP/1.1\r\nHost: zkr\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
        // a plausible frame length, then junk where a request should be
        byte[] junk = new byte[4 + 32];
        junk[3] = 32;
        java.util.Arrays.fill(junk, 4, junk.length, (byte) 0xEE);
        int frame = garbage(junk);

        try (Socket reset = new Socket("127.0.0.1", port)) { // half a frame, then an RST (linger 0)
            reset.getOutputStream().write(new byte[] {0, 0, 0, 64, 1, 2});
            reset.getOutputStream().flush();
            reset.setSoLinger(true, 0);
        }
        ProcessBuilder shell = new ProcessBuilder(home.resolve("bin/zkr").toString(), "--server", server, "shell")
                .directory(home.toFile()).redirectErrorStream(true);
        shell.environment().put("ZKR_HISTORY", dir.resolve("killed-history").toString());
        Process killed = shell.start();
        try {
            killed.getOutputStream().write("create -e /killed-mid-session x\n".getBytes(StandardCharsets.UTF_8));
            killed.getOutputStream().flush();
            StringBuilder seen = new StringBuilder();
            CompletableFuture<Void> created = CompletableFuture.runAsync(() -> {
                try {
                    var in = killed.getInputStream();
                    int c;
                    while (!seen.toString().contains("/killed-mid-session") && (c = in.read()) >= 0) {
                        seen.append((char) c);
                    }
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            });
            created.get(60, TimeUnit.SECONDS); // the killing below ends the read if this times out
            assertTrue(seen.toString().contains("/killed-mid-session"), "the shell's session: " + seen);
        } finally {
            killed.destroyForcibly(); // SIGKILL: the OS closes its socket under the session
            assertTrue(killed.waitFor(30, TimeUnit.SECONDS));
        }

        // the server has dealt with every one of these connections once none is open
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        String status = "";
        while (!status.contains("\"connections\":0")) {
            assertTrue(System.nanoTime() < deadline, "connections still open: " + status);
            Thread.sleep(20); // polling interval of a condition with a deadline
            status = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + adminPort + "/status"))
                    .build(), BodyHandlers.ofString()).body();
        }

        List<String> lines = Files.readAllLines(log);
        String text = String.join("\n", lines);
        assertTrue(lines.stream().noneMatch(l -> l.startsWith("\tat ") || l.contains("Caused by:")),
                "stack traces in the server's log:\n" + text);
        for (int clientPort : new int[] {http1, frame}) {
            java.util.regex.Pattern from = java.util.regex.Pattern.compile(":" + clientPort + "(\\D|$)");
            long about = lines.stream().filter(l -> from.matcher(l).find()).count();
            assertTrue(about >= 1 && about <= 2, about + " lines about the garbage from port " + clientPort + ":\n"
                    + text);
        }
    }

    /** Writes bytes that are not the protocol on a new connection; returns its local port once the server closed it. */
    private static int garbage(byte[] bytes) throws IOException {
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.setSoTimeout(30_000);
            s.getOutputStream().write(bytes);
            s.getOutputStream().flush();
            try {
                while (s.getInputStream().read() >= 0) {
                    // the server's error frame, if any, then its close
                }
            } catch (java.net.SocketException e) {
                // reset by the server: closed too
            }
            return s.getLocalPort();
        }
    }

    record Result(int exit, String out) {
    }

    static Result run(Path cwd, Map<String, String> env, String... cmd) throws IOException, InterruptedException {
        return runWithInput(cwd, env, "", cmd);
    }

    /** Runs the command with {@code input} on its standard input (then closed). */
    static Result runWithInput(Path cwd, Map<String, String> env, String input, String... cmd)
            throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(cmd));
        ProcessBuilder pb = new ProcessBuilder(command).directory(cwd.toFile()).redirectErrorStream(true);
        pb.environment().putAll(env);
        Process p = pb.start();
        try (var stdin = p.getOutputStream()) {
            stdin.write(input.getBytes(StandardCharsets.UTF_8));
        }
        byte[] out = p.getInputStream().readAllBytes();
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IllegalStateException(String.join(" ", cmd) + " did not finish");
        }
        return new Result(p.exitValue(), new String(out, StandardCharsets.UTF_8));
    }
}
