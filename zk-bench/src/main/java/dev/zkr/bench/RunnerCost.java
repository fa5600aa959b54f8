package dev.zkr.bench;

import java.io.IOException;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * What a measuring window cost, per sample, in terms that a loaded machine does not change much (unlike its
 * latencies): in the runner JVM, bytes allocated by all threads (a thread that ends inside the window takes its
 * count with it; the recipes' pool threads live 30 s), collections and their pause time, threads started and
 * thread blocks (voluntary context switches of live threads, Linux: each is a hand-off the thread then waited
 * for); on the server, the packets received and sent and the txns ({@code srvr}: zkr counts replies as sent,
 * ZooKeeper replies and watch notifications) and the servers' (child processes') blocks; CPU time of both, which a
 * loaded machine does inflate. Snapshot by {@link #start} at the first measured sample, compared by {@link #end}
 * after the last; the scenarios log it beside their row.
 */
final class RunnerCost {

    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    private final String connectString;
    private final long allocated;
    private final long collections;
    private final long collectionMillis;
    private final long threadsStarted;
    private final long blocks;
    private final long serverBlocks;
    private final long cpuNanos;
    private final long serverCpuNanos;
    private final long received;
    private final long sent;
    private final long zxid;
    private final Map<String, Long> cpuByGroup = new TreeMap<>();

    private RunnerCost(String connectString) {
        this.connectString = connectString;
        this.allocated = allocatedByAll();
        long n = 0;
        long ms = 0;
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            n += Math.max(0, gc.getCollectionCount());
            ms += Math.max(0, gc.getCollectionTime());
        }
        this.collections = n;
        this.collectionMillis = ms;
        this.threadsStarted = THREADS.getTotalStartedThreadCount();
        this.blocks = voluntarySwitches(ProcessHandle.current().pid());
        this.serverBlocks = ProcessHandle.current().children().mapToLong(p -> voluntarySwitches(p.pid())).sum();
        this.cpuNanos = ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
        this.serverCpuNanos = ProcessHandle.current().children()
                .mapToLong(p -> p.info().totalCpuDuration().map(Duration::toNanos).orElse(0L)).sum();
        for (ThreadInfo t : THREADS.getThreadInfo(THREADS.getAllThreadIds())) {
            if (t != null) {
                cpuByGroup.merge(t.getThreadName().replaceAll("[0-9]+", "N"),
                        Math.max(0, THREADS.getThreadCpuTime(t.getThreadId())), Long::sum);
            }
        }
        String srvr = srvr(connectString);
        this.received = field(srvr, "Received: ");
        this.sent = field(srvr, "Sent: ");
        this.zxid = field(srvr, "Zxid: ");
    }

    /** A snapshot now; {@code connectString}: the server the scenario runs on. */
    static RunnerCost start(String connectString) {
        return new RunnerCost(connectString);
    }

    /** Two lines, the costs per sample since {@link #start}, and the runner's CPU per sample by thread group. */
    String end(long samples) {
        RunnerCost now = new RunnerCost(connectString);
        double per = Math.max(1, samples);
        String costs = String.format(Locale.ROOT, "%,d samples; runner: %,.1f KB allocated/sample, %.2f GCs (%.1f ms)"
                        + " per 1,000 samples, %d threads started, %.1f thread blocks/sample, %.0f us CPU/sample; "
                        + "server: %.1f packets received, %.1f sent, %.3f txns, %.1f thread blocks, %.0f us CPU per "
                        + "sample", samples,
                (now.allocated - allocated) / per / 1024.0, (now.collections - collections) * 1000.0 / per,
                (now.collectionMillis - collectionMillis) * 1000.0 / per, now.threadsStarted - threadsStarted,
                (now.blocks - blocks) / per, (now.cpuNanos - cpuNanos) / per / 1000.0,
                (now.received - received) / per, (now.sent - sent) / per, (now.zxid - zxid) / per,
                (now.serverBlocks - serverBlocks) / per, (now.serverCpuNanos - serverCpuNanos) / per / 1000.0);
        Map<String, Long> spent = new HashMap<>();
        now.cpuByGroup.forEach((group, ns) -> spent.put(group, ns - cpuByGroup.getOrDefault(group, 0L)));
        StringBuilder groups = new StringBuilder("runner CPU/sample by thread:");
        spent.entrySet().stream().filter(e -> e.getValue() > 0)
                .sorted((x, y) -> Long.compare(y.getValue(), x.getValue())).limit(6)
                .forEach(e -> groups.append(String.format(Locale.ROOT, " %s %.0f us;", e.getKey(),
                        e.getValue() / per / 1000.0)));
        return costs + "\n           " + groups;
    }

    /** The {@code srvr} reply of the first server of the connect string, empty if it does not answer. */
    private static String srvr(String connectString) {
        String hostPort = connectString.split(",")[0];
        int colon = hostPort.lastIndexOf(':');
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(hostPort.substring(0, colon),
                    Integer.parseInt(hostPort.substring(colon + 1))), 500);
            s.setSoTimeout(2000);
            s.getOutputStream().write("srvr".getBytes(StandardCharsets.US_ASCII));
            s.getOutputStream().flush();
            return new String(s.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
        } catch (IOException | RuntimeException e) {
            return "";
        }
    }

    /** A number of a {@code srvr} line (decimal, or hex after 0x), -1 if absent. */
    private static long field(String srvr, String name) {
        int at = srvr.indexOf(name);
        if (at < 0) {
            return -1;
        }
        int end = srvr.indexOf('\n', at);
        String value = srvr.substring(at + name.length(), end < 0 ? srvr.length() : end).trim();
        try {
            return value.startsWith("0x") ? Long.parseLong(value.substring(2), 16) : Long.parseLong(value);
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /** Voluntary context switches of a process's live threads (Linux /proc), 0 where not readable. */
    private static long voluntarySwitches(long pid) {
        long sum = 0;
        try (Stream<Path> tasks = Files.list(Path.of("/proc", Long.toString(pid), "task"))) {
            for (Path t : (Iterable<Path>) tasks::iterator) {
                try {
                    for (String line : Files.readAllLines(t.resolve("status"))) {
                        if (line.startsWith("voluntary_ctxt_switches:")) {
                            sum += Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
                        }
                    }
                } catch (IOException | RuntimeException gone) {
                    // the thread ended meanwhile
                }
            }
        } catch (IOException | RuntimeException e) {
            return 0;
        }
        return sum;
    }

    private static long allocatedByAll() {
        long sum = 0;
        for (long bytes : THREADS.getThreadAllocatedBytes(THREADS.getAllThreadIds())) {
            sum += Math.max(0, bytes);
        }
        return sum;
    }
}
