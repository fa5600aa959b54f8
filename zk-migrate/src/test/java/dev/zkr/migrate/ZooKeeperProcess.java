package dev.zkr.migrate;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * A real ZooKeeper server in a child JVM ({@code QuorumPeerMain zoo.cfg}), standalone or one member of an ensemble,
 * of any version: {@code jars} are that version's {@code zookeeper} and {@code zookeeper-jute} jars (copied to
 * {@code target/zookeeper-<version>/} by zk-migrate's pom), put before the test's class path less its own ZooKeeper
 * jars (slf4j, netty and the rest); no jars means the test's ZooKeeper (3.9.3). {@link #kill()} is {@code kill -9}.
 */
final class ZooKeeperProcess implements AutoCloseable {
    /** Half the range away from where zk-testkit's LoopbackPorts starts in this JVM: zkr servers get other ports. */
    private static final AtomicInteger NEXT_PORT = new AtomicInteger(
            20_000 + (int) ((ProcessHandle.current().pid() * 7919 + 6_000) % 12_000));

    /** Children still running: killed if the test JVM exits first. */
    private static final java.util.Set<Process> LIVE = java.util.concurrent.ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> LIVE.forEach(Process::destroyForcibly),
                "kill-zookeepers"));
    }

    private final Process process;
    private final Path output;
    private final int clientPort;

    private ZooKeeperProcess(Process process, Path output, int clientPort) {
        this.process = process;
        this.output = output;
        this.clientPort = clientPort;
    }

    /** The jars of ZooKeeper {@code version} as zk-migrate's pom copies them; fails if they are missing. */
    static List<Path> jarsOf(String version) {
        Path dir = Path.of(System.getProperty("basedir", "."), "target", "zookeeper-" + version);
        List<Path> jars = List.of(dir.resolve("zookeeper-" + version + ".jar"),
                dir.resolve("zookeeper-jute-" + version + ".jar"));
        for (Path j : jars) {
            if (!Files.isRegularFile(j)) {
                throw new IllegalStateException(j + " is missing: zk-migrate's pom copies it (mvn "
                        + "generate-test-resources)");
            }
        }
        return jars;
    }

    /**
     * Starts a server whose {@code zoo.cfg} is {@code config} plus {@code dataDir}, with the small snapCount and log
     * preallocation that give several snapshots and log files in a few hundred txns, TTL nodes on, no admin server.
     * {@code myid} is written to the data dir when {@code config} has {@code server.N} lines.
     */
    static ZooKeeperProcess start(List<Path> jars, Path dataDir, int myId, int clientPort, Map<String, String> config)
            throws IOException {
        Files.createDirectories(dataDir);
        StringBuilder cfg = new StringBuilder();
        cfg.append("tickTime=200\ninitLimit=20\nsyncLimit=10\nmaxSessionTimeout=60000\n");
        cfg.append("dataDir=").append(dataDir.toAbsolutePath()).append('\n');
        cfg.append("clientPort=").append(clientPort).append("\nclientPortAddress=127.0.0.1\n");
        cfg.append("snapCount=40\npreAllocSize=64\nadmin.enableServer=false\n4lw.commands.whitelist=*\n");
        config.forEach((k, v) -> cfg.append(k).append('=').append(v).append('\n'));
        if (myId > 0) {
            Files.writeString(dataDir.resolve("myid"), myId + "\n");
        }
        Path cfgFile = dataDir.resolveSibling(dataDir.getFileName() + ".cfg");
        Files.writeString(cfgFile, cfg, StandardCharsets.UTF_8);

        List<String> cp = new ArrayList<>();
        for (Path j : jars) {
            cp.add(j.toAbsolutePath().toString());
        }
        for (String e : System.getProperty("java.class.path").split(File.pathSeparator)) {
            String name = Path.of(e).getFileName().toString();
            if (jars.isEmpty() || !(name.startsWith("zookeeper-") && name.endsWith(".jar"))) {
                cp.add(e);
            }
        }
        List<String> cmd = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx192m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
                "-Dzookeeper.extendedTypesEnabled=true", // TTL nodes
                "-Dzookeeper.jmx.log4j.disable=true", // 3.5 registers log4j's MBeans otherwise (no log4j here)
                "-Dzookeeper.admin.enableServer=false",
                "-Dorg.slf4j.simpleLogger.defaultLogLevel=info",
                "-cp", String.join(File.pathSeparator, cp),
                "org.apache.zookeeper.server.quorum.QuorumPeerMain", cfgFile.toString());
        Path out = dataDir.resolveSibling(dataDir.getFileName() + ".out");
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(out.toFile()).start();
        LIVE.add(p);
        return new ZooKeeperProcess(p, out, clientPort);
    }

    /** Ports free on loopback now, below the ephemeral range (as zk-testkit's LoopbackPorts). */
    static int[] freePorts(int n) {
        int[] ports = new int[n];
        for (int k = 0; k < n; k++) {
            while (true) {
                int port = 20_000 + Math.floorMod(NEXT_PORT.getAndIncrement() - 20_000, 12_000);
                try (ServerSocket s = new ServerSocket()) {
                    s.setReuseAddress(true);
                    s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1);
                    ports[k] = port;
                    break;
                } catch (IOException taken) {
                    // next
                }
            }
        }
        return ports;
    }

    String connectString() {
        return "127.0.0.1:" + clientPort;
    }

    /**
     * The server's {@code Mode:} as its {@code srvr} four-letter word answers it ({@code leader}, {@code follower},
     * {@code standalone}), or {@code ""} while it does not serve.
     */
    String mode() {
        try (Socket s = new Socket()) {
            // a server still starting may hold the connection open without answering: ask again later
            s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), clientPort), 1000);
            s.setSoTimeout(1000);
            s.getOutputStream().write("srvr".getBytes(StandardCharsets.US_ASCII));
            s.getOutputStream().flush();
            String reply = new String(s.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
            for (String line : reply.split("\n")) {
                if (line.startsWith("Mode: ")) {
                    return line.substring("Mode: ".length()).trim();
                }
            }
            return "";
        } catch (IOException e) {
            return "";
        }
    }

    /**
     * Returns once the server serves (its {@code srvr} answers with a mode), polling every 20 ms for up to 60 s. A
     * client must not connect earlier: ZooKeeper 3.5.10 binds its port before it serves, and a connection closed in
     * that window hits a bug of its own (a NullPointerException in {@code removeCnxn}) that leaves the client waiting
     * out its whole read timeout.
     *
     * @throws IllegalStateException if the process died or the server does not serve by then
     */
    ZooKeeperProcess awaitServing() {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (mode().isEmpty()) {
            if (!process.isAlive()) {
                throw new IllegalStateException("ZooKeeper exited with status " + process.exitValue() + ":\n"
                        + output());
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("ZooKeeper does not serve after 60 s:\n" + output());
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20)); // polling its srvr, as TestEnsemble.leader()
        }
        return this;
    }

    /** The server's output so far (for a failure message). */
    String output() {
        try {
            String s = Files.readString(output, StandardCharsets.UTF_8);
            return s.length() > 4000 ? s.substring(s.length() - 4000) : s;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** {@code kill -9}: nothing the server had not written and synced survives. */
    void kill() throws InterruptedException {
        process.destroyForcibly();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException("ZooKeeper child JVM did not die");
        }
        LIVE.remove(process);
    }

    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) {
            kill();
        }
    }
}
