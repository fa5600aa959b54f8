package dev.zkr.kafka;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;

/**
 * One Apache Kafka 3.9.1 broker in ZooKeeper mode ({@code kafka.Kafka server.properties}) in a JVM of its own, with
 * Kafka's own class path (its ZooKeeper client 3.8.4; see the broker module), listening on loopback, its log
 * directory temporary, its {@code zookeeper.connect} the given connect string (a zkr ensemble's). Settings for one
 * broker: internal topics with one replica and one partition, no topic created on the fly. Its output (Kafka's log
 * lines at INFO) goes to {@code broker-<id>.log} in the directory {@code zkr.kafka.logs} names (or the temp dir).
 */
final class ZkModeBroker implements AutoCloseable {

    /** System property: the file holding the broker's class path (written by the zk-kafka-broker module). */
    static final String CLASSPATH_PROPERTY = "zkr.kafka.broker.classpath";
    /** System property: where broker logs go. */
    static final String LOGS_PROPERTY = "zkr.kafka.logs";

    /** What the ZooKeeper client logs when the broker creates it. */
    private static final String ZOOKEEPER_VERSION = "Client environment:zookeeper.version=";
    private static final Duration START_TIMEOUT = Duration.ofSeconds(90);
    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(60);

    private final Process process;
    private final Thread pump;
    private final Path dir;
    private final Path logFile;
    private final int port;
    private final AtomicReference<String> zookeeperVersion;

    private ZkModeBroker(Process process, Thread pump, Path dir, Path logFile, int port,
                         AtomicReference<String> zookeeperVersion) {
        this.zookeeperVersion = zookeeperVersion;
        this.process = process;
        this.pump = pump;
        this.dir = dir;
        this.logFile = logFile;
        this.port = port;
    }

    /**
     * Starts broker {@code brokerId} on {@code zookeeperConnect}; returns once it logs that it has started (it has
     * registered in ZooKeeper and its listener serves).
     *
     * @throws IllegalStateException if the broker exits or has not started within 90 s (its log says why)
     */
    static ZkModeBroker start(int brokerId, String zookeeperConnect) {
        try {
            return launch(brokerId, zookeeperConnect);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start Kafka broker " + brokerId, e);
        }
    }

    private static ZkModeBroker launch(int brokerId, String zookeeperConnect) throws IOException {
        String classpathFile = System.getProperty(CLASSPATH_PROPERTY);
        if (classpathFile == null) {
            throw new IllegalStateException("system property " + CLASSPATH_PROPERTY + " is not set (run through Maven "
                    + "with -Pkafka: zk-kafka/README.md)");
        }
        String classpath = Files.readString(Path.of(classpathFile)).trim();
        Path dir = Files.createTempDirectory("zkr-kafka-" + brokerId + "-");
        int port = freePort();
        List<String> config = List.of(
                "broker.id=" + brokerId,
                "zookeeper.connect=" + zookeeperConnect,
                "zookeeper.session.timeout.ms=18000",
                "listeners=PLAINTEXT://127.0.0.1:" + port,
                "log.dirs=" + dir.resolve("data"),
                "num.partitions=1",
                "offsets.topic.replication.factor=1",
                "offsets.topic.num.partitions=1",
                "transaction.state.log.replication.factor=1",
                "transaction.state.log.min.isr=1",
                "group.initial.rebalance.delay.ms=0",
                "auto.create.topics.enable=false");
        Path properties = dir.resolve("server.properties");
        Files.write(properties, config);
        Path logs = Path.of(System.getProperty(LOGS_PROPERTY, dir.toString()));
        Files.createDirectories(logs);
        Path logFile = logs.resolve("broker-" + brokerId + ".log");

        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process process = new ProcessBuilder(java, "-Xmx512m", "-XX:+UseSerialGC",
                "-Dorg.slf4j.simpleLogger.defaultLogLevel=info", "-Dorg.slf4j.simpleLogger.showDateTime=true",
                "-cp", classpath, "kafka.Kafka", properties.toString())
                .redirectErrorStream(true)
                .start();
        CompletableFuture<Void> started = new CompletableFuture<>();
        String startedLine = "[KafkaServer id=" + brokerId + "] started";
        AtomicReference<String> zookeeperVersion = new AtomicReference<>();
        Thread pump = new Thread(() -> copyLog(process, logFile, startedLine, started, zookeeperVersion),
                "kafka-broker-" + brokerId);
        pump.setDaemon(true);
        pump.start();
        ZkModeBroker broker = new ZkModeBroker(process, pump, dir, logFile, port, zookeeperVersion);
        try {
            started.get(START_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        } catch (ExecutionException | TimeoutException e) {
            broker.close();
            throw new IllegalStateException("Kafka broker " + brokerId + " did not start within " + START_TIMEOUT
                    + " (its log: " + logFile + ")", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            broker.close();
            throw new IllegalStateException("interrupted while starting Kafka broker " + brokerId, e);
        }
        return broker;
    }

    /**
     * Copies the broker's output to its log file; completes {@code started} at the line that says so, and keeps the
     * version its ZooKeeper client logs.
     */
    private static void copyLog(Process process, Path logFile, String startedLine, CompletableFuture<Void> started,
                                AtomicReference<String> zookeeperVersion) {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(),
                StandardCharsets.UTF_8));
             PrintWriter out = new PrintWriter(Files.newBufferedWriter(logFile), true)) {
            String line;
            while ((line = in.readLine()) != null) {
                out.println(line);
                int v = line.indexOf(ZOOKEEPER_VERSION);
                if (v >= 0) {
                    zookeeperVersion.set(line.substring(v + ZOOKEEPER_VERSION.length()).split("[-,]")[0]);
                }
                if (!started.isDone() && line.contains(startedLine)) {
                    started.complete(null);
                }
            }
        } catch (IOException e) {
            started.completeExceptionally(e);
        } finally {
            started.completeExceptionally(new IllegalStateException("the broker's output ended (it exited)"));
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    /** {@code 127.0.0.1:port} of the broker's listener, for clients' {@code bootstrap.servers}. */
    String bootstrapServers() {
        return "127.0.0.1:" + port;
    }

    /** The version of the broker's ZooKeeper client (from its log), e.g. {@code 3.8.4}; null if not logged. */
    String zookeeperClientVersion() {
        return zookeeperVersion.get();
    }

    /** The file the broker's output goes to. */
    Path logFile() {
        return logFile;
    }

    /** True while the broker's JVM runs. */
    boolean isAlive() {
        return process.isAlive();
    }

    /** Stops the broker (SIGTERM: Kafka's clean shutdown; killed after 60 s) and deletes its directory. */
    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(STOP_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(STOP_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            }
            pump.join(STOP_TIMEOUT.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
        try (Stream<Path> s = Files.walk(dir)) {
            s.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete " + dir, e);
        }
    }
}
