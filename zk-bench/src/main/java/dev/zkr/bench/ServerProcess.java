package dev.zkr.bench;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A server running in its own JVM ({@code java -Xmx<heap> -cp <this JVM's class path> <main> <args>}), its stdout
 * and stderr captured to files (and, for watched servers, read line by line). Every started process is killed by a shutdown hook if the runner exits first.
 */
public final class ServerProcess implements AutoCloseable {

    private static final Set<Process> LIVE = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            for (Process p : LIVE) {
                p.destroyForcibly();
            }
        }, "kill-servers"));
    }

    private final String name;
    private final Process process;
    private final int port;
    private final Path stdout;
    private final List<String> cmd;
    private final Path logDir;
    private final OutputListener listener;

    private ServerProcess(String name, Process process, int port, Path stdout, List<String> cmd, Path logDir,
                          OutputListener listener) {
        this.name = name;
        this.process = process;
        this.port = port;
        this.stdout = stdout;
        this.cmd = List.copyOf(cmd);
        this.logDir = logDir;
        this.listener = listener;
    }

    /** Receives each line a server prints, with the runner's {@link System#nanoTime()} at its arrival. */
    @FunctionalInterface
    interface OutputListener {
        void line(long nanos, String line);
    }

    /** Environment variables given to every server process started (or restarted) from now on. */
    private static volatile Map<String, String> extraEnvironment = Map.of();

    /**
     * Sets the environment variables added to every server process started or restarted from now on (zk-chaos's
     * slow-fsync shim); {@code Map.of()} for none.
     */
    public static void environment(Map<String, String> env) {
        extraEnvironment = Map.copyOf(env);
    }

    /** Starts {@code mainClass args} in a new JVM; output goes to {@code logDir/<name>.out|.err}. */
    static ServerProcess start(String name, String heap, String mainClass, List<String> args, int port, Path logDir) {
        return start(name, command(heap, mainClass, args), port, logDir, null);
    }

    /**
     * Starts {@code mainClass args} in a new JVM whose stdout and stderr are read by this JVM line by line: each line
     * goes to {@code listener} (timestamped on arrival) and is appended to {@code logDir/<name>.out|.err}. The
     * server's slf4j-simple logger prints INFO with wall-clock times ({@code HH:mm:ss.SSS}) for people reading the
     * files. {@link #restart()} starts the same command again with the same listener.
     */
    static ServerProcess startWatched(String name, String heap, String mainClass, List<String> args, int port,
                                      Path logDir, OutputListener listener) {
        List<String> cmd = command(heap, mainClass, args);
        cmd.addAll(1, List.of("-Dorg.slf4j.simpleLogger.defaultLogLevel=info",
                "-Dorg.slf4j.simpleLogger.showDateTime=true",
                "-Dorg.slf4j.simpleLogger.dateTimeFormat=HH:mm:ss.SSS"));
        return start(name, cmd, port, logDir, listener);
    }

    private static List<String> command(String heap, String mainClass, List<String> args) {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("-Xmx" + heap);
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(mainClass);
        cmd.addAll(args);
        return cmd;
    }

    private static ServerProcess start(String name, List<String> cmd, int port, Path logDir, OutputListener listener) {
        try {
            Files.createDirectories(logDir);
            Path out = logDir.resolve(name + ".out");
            Path err = logDir.resolve(name + ".err");
            ProcessBuilder pb = new ProcessBuilder(cmd);
            pb.environment().putAll(extraEnvironment);
            if (listener == null) {
                pb.redirectOutput(out.toFile()).redirectError(err.toFile());
            }
            Process p = pb.start();
            LIVE.add(p);
            if (listener != null) {
                pump(p.getInputStream(), out, listener, name + "-out");
                pump(p.getErrorStream(), err, listener, name + "-err");
            }
            return new ServerProcess(name, p, port, out, cmd, logDir, listener);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + name, e);
        }
    }

    /** Copies a child's stream to a file (appending) and hands every line to the listener, on a daemon thread. */
    private static void pump(InputStream in, Path file, OutputListener listener, String threadName) throws IOException {
        BufferedWriter w = Files.newBufferedWriter(file, StandardCharsets.UTF_8, StandardOpenOption.CREATE,
                StandardOpenOption.APPEND);
        Thread t = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8)); w) {
                String line;
                while ((line = r.readLine()) != null) {
                    listener.line(System.nanoTime(), line);
                    w.write(line);
                    w.newLine();
                    w.flush();
                }
            } catch (IOException ended) {
                // the process is gone
            }
        }, threadName);
        t.setDaemon(true);
        t.start();
    }

    /** The same command again (same ports, data dir, log files appended, listener), for a restart after a kill. */
    ServerProcess restart() {
        if (process.isAlive()) {
            throw new IllegalStateException(name + " is still running");
        }
        return start(name, cmd, port, logDir, listener);
    }

    /** Sends a signal by name ({@code STOP}, {@code CONT}) with {@code kill -<sig> <pid>}; returns once sent. */
    public void signal(String signal) {
        try {
            Process k = new ProcessBuilder("kill", "-" + signal, Long.toString(pid())).redirectErrorStream(true).start();
            byte[] out = k.getInputStream().readAllBytes();
            if (!k.waitFor(10, TimeUnit.SECONDS) || k.exitValue() != 0) {
                throw new IllegalStateException("kill -" + signal + " " + pid() + " failed: "
                        + new String(out, StandardCharsets.UTF_8));
            }
        } catch (IOException e) {
            throw new UncheckedIOException("kill -" + signal, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    public String name() {
        return name;
    }

    public long pid() {
        return process.pid();
    }

    public int port() {
        return port;
    }

    public String connectString() {
        return "127.0.0.1:" + port;
    }

    public boolean alive() {
        return process.isAlive();
    }

    /** Fails with a clear message if the JVM has exited. */
    public void checkAlive() {
        if (!process.isAlive()) {
            throw new IllegalStateException(name + " exited with code " + process.exitValue() + ", see " + stdout
                    + " and its .err");
        }
    }

    /** Waits until the port accepts TCP connections, or fails at the deadline or when the JVM dies. */
    void awaitPort(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            checkAlive();
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress("127.0.0.1", port), 200);
                return;
            } catch (IOException notYet) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException(name + " did not open port " + port + " within " + timeout);
                }
                pause(10);
            }
        }
    }

    /** Runs a full GC in the server JVM and returns the heap in use afterwards, in bytes (via jcmd). */
    long heapUsedAfterFullGc() {
        checkAlive();
        jcmd("GC.run");
        String info = jcmd("GC.heap_info");
        Matcher m = Pattern.compile("used (\\d+)K").matcher(info);
        if (!m.find()) {
            throw new IllegalStateException("cannot parse jcmd GC.heap_info output: " + info);
        }
        return Long.parseLong(m.group(1)) * 1024;
    }

    /**
     * The heap in use after a full GC once the server is at rest: a server that just took a million writes is still
     * finishing a snapshot, whose buffers and in-flight state would count (one reading right after the build was 313
     * MB, the next ones 198 MB). Reads it every 2 s until two readings agree within 1 % (at most 60 s) and returns the
     * smaller.
     */
    long settledHeapAfterFullGc() {
        long previous = heapUsedAfterFullGc();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline) {
            pause(2000);
            long now = heapUsedAfterFullGc();
            if (Math.abs(now - previous) <= previous / 100) {
                return Math.min(now, previous);
            }
            previous = now;
        }
        return previous;
    }

    /**
     * Group 1 of the last line of the server's output (stdout, then stderr) that {@code pattern} finds, or null: how
     * the bench reads figures a server only logs, such as how long its last snapshot took.
     */
    String lastLogMatch(Pattern pattern) {
        String found = null;
        for (Path file : List.of(stdout, logDir.resolve(name + ".err"))) {
            if (!Files.exists(file)) {
                continue;
            }
            try (java.util.stream.Stream<String> lines = Files.lines(file, StandardCharsets.UTF_8)) {
                for (String line : (Iterable<String>) lines::iterator) {
                    Matcher m = pattern.matcher(line);
                    if (m.find()) {
                        found = m.group(1);
                    }
                }
            } catch (IOException | java.io.UncheckedIOException e) {
                throw new IllegalStateException("reading " + file, e);
            }
        }
        return found;
    }

    /**
     * The bytes of the live objects in the server's heap: the total of {@code jcmd GC.class_histogram} (a full GC,
     * then a count of what survived), written to {@code logDir/<name>-<step>-histogram.txt}. Exact where
     * {@link #heapUsedAfterFullGc()} counts whole regions' use.
     */
    long liveHeapBytes(String step) {
        checkAlive();
        String histogram = jcmd("GC.class_histogram");
        Path file = logDir.resolve(name + "-" + step + "-histogram.txt");
        try {
            Files.writeString(file, histogram);
        } catch (IOException e) {
            throw new UncheckedIOException("writing " + file, e);
        }
        Matcher m = Pattern.compile("(?m)^Total\\s+\\d+\\s+(\\d+)").matcher(histogram);
        if (!m.find()) {
            throw new IllegalStateException("no Total line in jcmd GC.class_histogram output");
        }
        return Long.parseLong(m.group(1));
    }

    /**
     * Writes the server's class histogram ({@code jcmd GC.class_histogram}, which runs a full GC first) to
     * {@code logDir/<name>-histogram.txt}, where the heap figures can be traced to classes; returns the file.
     */
    Path writeClassHistogram() {
        checkAlive();
        Path file = logDir.resolve(name + "-histogram.txt");
        try {
            Files.writeString(file, jcmd("GC.class_histogram"));
        } catch (IOException e) {
            throw new UncheckedIOException("writing " + file, e);
        }
        return file;
    }

    private String jcmd(String command) {
        Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
        String exe = Files.isExecutable(jcmd) ? jcmd.toString() : "jcmd";
        try {
            Process p = new ProcessBuilder(exe, Long.toString(pid()), command).redirectErrorStream(true).start();
            byte[] out = p.getInputStream().readAllBytes();
            if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
                throw new IllegalStateException("jcmd " + command + " failed: " + new String(out, StandardCharsets.UTF_8));
            }
            return new String(out, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("jcmd " + command, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    /** kill -9 and wait for the JVM to be gone. */
    public void kill() {
        process.destroyForcibly();
        try {
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                throw new IllegalStateException(name + " did not die within 30 s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            LIVE.remove(process);
        }
    }

    @Override
    public void close() {
        kill();
    }

    /** Listening ports are drawn below the kernel's ephemeral range (Linux: 32768-60999). */
    static final int LOW_PORT = 20_000;
    static final int HIGH_PORT = 32_000;
    private static final java.util.concurrent.atomic.AtomicInteger NEXT_PORT = new java.util.concurrent.atomic
            .AtomicInteger(LOW_PORT + (int) (ProcessHandle.current().pid() * 7919 % (HIGH_PORT - LOW_PORT)));

    /**
     * A loopback port free now, for a server to bind a moment later. Drawn below the ephemeral range, so that the
     * local port of an outgoing connection (a client, a proxy, a peer link: the kernel picks those from the
     * ephemeral range, as it does for port 0) cannot take it in between; ports are handed out in turn from a
     * per-process start, so two runners on one machine rarely try the same one.
     */
    public static int freePort() {
        for (int i = 0; i < HIGH_PORT - LOW_PORT; i++) {
            int port = LOW_PORT + Math.floorMod(NEXT_PORT.getAndIncrement() - LOW_PORT, HIGH_PORT - LOW_PORT);
            try (ServerSocket s = new ServerSocket()) {
                s.setReuseAddress(true);
                s.bind(new java.net.InetSocketAddress(java.net.InetAddress.getLoopbackAddress(), port), 1);
                return port;
            } catch (IOException inUse) {
                // taken: try the next
            }
        }
        throw new IllegalStateException("no free loopback port in " + LOW_PORT + "-" + HIGH_PORT);
    }

    static void pause(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }
}
