package dev.zkr.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A server running in its own JVM ({@code java -Xmx2g -cp <this JVM's class path> <main> <args>}), its stdout and
 * stderr captured to files. Every started process is killed by a shutdown hook if the runner exits first.
 */
final class ServerProcess implements AutoCloseable {

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

    private ServerProcess(String name, Process process, int port, Path stdout) {
        this.name = name;
        this.process = process;
        this.port = port;
        this.stdout = stdout;
    }

    /** Starts {@code mainClass args} in a new JVM; output goes to {@code logDir/<name>.out|.err}. */
    static ServerProcess start(String name, String heap, String mainClass, List<String> args, int port, Path logDir) {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("-Xmx" + heap);
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(mainClass);
        cmd.addAll(args);
        try {
            Files.createDirectories(logDir);
            Path out = logDir.resolve(name + ".out");
            Path err = logDir.resolve(name + ".err");
            Process p = new ProcessBuilder(cmd)
                    .redirectOutput(out.toFile())
                    .redirectError(err.toFile())
                    .start();
            LIVE.add(p);
            return new ServerProcess(name, p, port, out);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + name, e);
        }
    }

    String name() {
        return name;
    }

    long pid() {
        return process.pid();
    }

    int port() {
        return port;
    }

    String connectString() {
        return "127.0.0.1:" + port;
    }

    boolean alive() {
        return process.isAlive();
    }

    /** Fails with a clear message if the JVM has exited. */
    void checkAlive() {
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
    void kill() {
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

    /** A currently free loopback port (the small race before the server binds it is acceptable here). */
    static int freePort() {
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            s.setReuseAddress(true);
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
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
