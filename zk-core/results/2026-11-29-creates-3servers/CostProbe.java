package dev.zkr.bench;

import java.io.*;
import java.nio.file.*;
import java.time.Duration;
import java.util.*;
import java.util.stream.*;

/** Scratch probe: load-independent cost per committed create on a 3-server ensemble (issue 27). */
public final class CostProbe {
    record Snap(long cpuTicks, long vol, long invol, Map<String, long[]> byThread, long rchar, long wchar) {}

    static Snap snap(long pid) throws IOException {
        long cpu = 0, vol = 0, inv = 0;
        Map<String, long[]> by = new TreeMap<>();
        try (Stream<Path> tasks = Files.list(Path.of("/proc", Long.toString(pid), "task"))) {
            for (Path t : (Iterable<Path>) tasks::iterator) {
                try {
                    String stat = Files.readString(t.resolve("stat"));
                    int rp = stat.lastIndexOf(')');
                    String name = stat.substring(stat.indexOf('(') + 1, rp).replaceAll("[0-9]+", "N");
                    String[] f = stat.substring(rp + 2).split(" ");
                    long ticks = Long.parseLong(f[11]) + Long.parseLong(f[12]);
                    long v = 0, n = 0;
                    for (String line : Files.readAllLines(t.resolve("status"))) {
                        if (line.startsWith("voluntary_ctxt_switches:")) v = Long.parseLong(line.substring(24).trim());
                        if (line.startsWith("nonvoluntary_ctxt_switches:")) n = Long.parseLong(line.substring(27).trim());
                    }
                    cpu += ticks; vol += v; inv += n;
                    long[] a = by.computeIfAbsent(name, k -> new long[3]);
                    a[0] += ticks; a[1] += v; a[2] += n;
                } catch (IOException | RuntimeException gone) { }
            }
        }
        String pst = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
        String[] pf = pst.substring(pst.lastIndexOf(')') + 2).split(" ");
        cpu = Long.parseLong(pf[11]) + Long.parseLong(pf[12]); // the process: exited threads included
        long rc = 0, wc = 0;
        for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "io"))) {
            if (line.startsWith("rchar:")) rc = Long.parseLong(line.substring(6).trim());
            if (line.startsWith("wchar:")) wc = Long.parseLong(line.substring(6).trim());
        }
        return new Snap(cpu, vol, inv, by, rc, wc);
    }

    /** ss -tin: per local/peer port pair bytes_sent, segs_out. */
    static Map<String, long[]> sockets() throws Exception {
        Process p = new ProcessBuilder("ss", "-tinH", "state", "established").redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        p.waitFor();
        Map<String, long[]> m = new HashMap<>();
        String[] lines = out.split("\n");
        for (int i = 0; i + 1 < lines.length; i += 2) {
            String[] h = lines[i].trim().split("\\s+");
            if (h.length < 4) { i--; continue; }
            String key = h[2] + ">" + h[3];
            String info = lines[i + 1];
            m.put(key, new long[] {num(info, "bytes_sent:"), num(info, "segs_out:"), num(info, "bytes_received:"), num(info, "segs_in:")});
        }
        return m;
    }

    static long num(String s, String k) {
        int at = s.indexOf(k);
        if (at < 0) return 0;
        int e = at + k.length();
        int end = e;
        while (end < s.length() && Character.isDigit(s.charAt(end))) end++;
        return end == e ? 0 : Long.parseLong(s.substring(e, end));
    }

    public static void main(String[] args) throws Exception {
        String which = args[0];
        int warm = Integer.parseInt(args[1]);
        int measure = Integer.parseInt(args[2]);
        Path out = Path.of(args[3]);
        boolean jfr = args.length > 4 && args[4].equals("jfr");
        boolean perf = args.length > 4 && args[4].equals("perf");
        int rounds = args.length > 5 ? Integer.parseInt(args[5]) : 1;
        Files.createDirectories(out);
        ServerFlavor flavor = which.equals("zkr") ? new ServerFlavor.Zkr(false) : new ServerFlavor.ZooKeeper();
        ServerFlavor client = new ServerFlavor.ZooKeeper();
        Ensemble e = Ensemble.start(flavor, 3, out.resolve("data"), out.resolve("logs"), "probe-" + which);
        try {
            int leader = e.awaitFull(Duration.ofSeconds(120));
            List<String> order = EnsembleBench.followersFirst(e);
            ClientPlacement placement = ClientPlacement.roundRobin(order);
            String[] role = new String[3];
            long[] pids = new long[3];
            Set<Integer> peerPorts = new HashSet<>();
            Set<Integer> clientPorts = new HashSet<>();
            for (int i = 0; i < 3; i++) {
                pids[i] = e.server(i).pid();
                role[i] = i == leader ? "L" : "F";
                peerPorts.add(e.members().get(i).peerPort());
                peerPorts.add(e.members().get(i).electionPort());
                clientPorts.add(e.members().get(i).clientPort());
            }
            // followers: F1 gets clients 0 and 3, F2 client 1, L client 2
            for (int r = 0; r <= rounds; r++) {
                Window w = new Window(Duration.ofSeconds(r == 0 ? 5 : warm), Duration.ofSeconds(r == 0 ? 3 : measure));
                final int round = r;
                Snap[][] snaps = new Snap[2][3];
                Map<String, long[]>[] socks = new Map[2];
                Snap[] runner = new Snap[2];
                long[] ops = new long[1];
                Thread sampler = new Thread(() -> {
                    try {
                        while (!w.measuring() && !w.stopped()) Thread.sleep(1);
                        List<Process> perfs = new ArrayList<>();
                        if (round > 0 && perf) {
                            for (int i = 0; i < 3; i++) {
                                perfs.add(new ProcessBuilder("perf", "stat", "-x,", "--per-thread", "-e",
                                        "raw_syscalls:sys_enter,syscalls:sys_enter_futex,syscalls:sys_enter_write,syscalls:sys_enter_writev,syscalls:sys_enter_read,syscalls:sys_enter_epoll_wait,syscalls:sys_enter_fdatasync,syscalls:sys_enter_fsync,syscalls:sys_enter_pwrite64,syscalls:sys_enter_sendmsg,syscalls:sys_enter_recvfrom,syscalls:sys_enter_sendto,context-switches",
                                        "-p", Long.toString(pids[i]), "-o", out.resolve("perf-" + which + "-" + i + role[i] + ".csv").toString(),
                                        "--", "sleep", Integer.toString(measure)).start());
                            }
                        }
                        if (round > 0 && jfr) {
                            for (int i = 0; i < 3; i++) {
                                new ProcessBuilder("jcmd", Long.toString(pids[i]), "JFR.start", "name=probe", "settings=profile")
                                        .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
                            }
                        }
                        for (int i = 0; i < 3; i++) snaps[0][i] = snap(pids[i]);
                        runner[0] = snap(ProcessHandle.current().pid());
                        socks[0] = sockets();
                        while (w.measuring()) Thread.sleep(1);
                        for (int i = 0; i < 3; i++) snaps[1][i] = snap(pids[i]);
                        runner[1] = snap(ProcessHandle.current().pid());
                        socks[1] = sockets();
                        if (round > 0 && jfr) {
                            for (int i = 0; i < 3; i++) {
                                new ProcessBuilder("jcmd", Long.toString(pids[i]), "JFR.stop", "name=probe",
                                        "filename=" + out.resolve("jfr-" + which + "-" + i + role[i] + ".jfr"))
                                        .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start().waitFor();
                            }
                        }
                        for (Process p : perfs) p.waitFor();
                    } catch (Exception ex) { ex.printStackTrace(); }
                });
                sampler.start();
                Measurement m = ServerScenarios.asyncCreates(client, placement, "/probe/r" + r, w);
                sampler.join();
                long n = w.measuredOps();
                double secs = measure;
                if (r == 0) { System.out.println("warm-up round: " + m); continue; }
                StringBuilder sb = new StringBuilder();
                sb.append(String.format(Locale.ROOT, "%s round %d: %s, %d creates in window (%.0f/s)%n", which, r, m, n, n / (double) (r == 0 ? 3 : measure)));
                long totalCpu = 0;
                for (int i = 0; i < 3; i++) {
                    Snap a = snaps[0][i], b = snaps[1][i];
                    long cpu = b.cpuTicks - a.cpuTicks; totalCpu += cpu;
                    sb.append(String.format(Locale.ROOT, "  server %d (%s): cpu %.1f us/txn, vol cs %.2f/txn, invol cs %.2f/txn, rchar %.0f B/txn, wchar %.0f B/txn%n",
                            i, role[i], cpu * 10_000.0 / n, (b.vol - a.vol) / (double) n, (b.invol - a.invol) / (double) n,
                            (b.rchar - a.rchar) / (double) n, (b.wchar - a.wchar) / (double) n));
                    List<Map.Entry<String, long[]>> rows = new ArrayList<>();
                    for (var t : b.byThread.entrySet()) {
                        long[] x = a.byThread.getOrDefault(t.getKey(), new long[3]);
                        rows.add(Map.entry(t.getKey(), new long[] {t.getValue()[0] - x[0], t.getValue()[1] - x[1], t.getValue()[2] - x[2]}));
                    }
                    rows.sort((p, q) -> Long.compare(q.getValue()[0], p.getValue()[0]));
                    for (var t : rows) {
                        if (t.getValue()[0] == 0 && t.getValue()[1] < n / 100) continue;
                        sb.append(String.format(Locale.ROOT, "      %-28s cpu %6.1f us/txn  vol %.3f/txn  invol %.3f/txn%n", t.getKey(),
                                t.getValue()[0] * 10_000.0 / n, t.getValue()[1] / (double) n, t.getValue()[2] / (double) n));
                    }
                }
                sb.append(String.format(Locale.ROOT, "  servers total cpu %.1f us/txn; runner (clients) cpu %.1f us/txn, vol cs %.2f/txn%n", totalCpu * 10_000.0 / n,
                        (runner[1].cpuTicks - runner[0].cpuTicks) * 10_000.0 / n, (runner[1].vol - runner[0].vol) / (double) n));
                // sockets: classify by local port
                long[] peerB = new long[2], cliB = new long[2];
                Map<String, long[]> perLink = new TreeMap<>();
                for (var s : socks[1].entrySet()) {
                    long[] x = socks[0].getOrDefault(s.getKey(), new long[4]);
                    long bytes = s.getValue()[0] - x[0], segs = s.getValue()[1] - x[1];
                    String[] lr = s.getKey().split(">");
                    int lp = Integer.parseInt(lr[0].substring(lr[0].lastIndexOf(':') + 1));
                    int rp = Integer.parseInt(lr[1].substring(lr[1].lastIndexOf(':') + 1));
                    if (peerPorts.contains(lp) || peerPorts.contains(rp)) {
                        peerB[0] += bytes; peerB[1] += segs;
                        if (bytes > 0) perLink.put(lp + "->" + rp, new long[] {bytes, segs});
                    } else if (clientPorts.contains(lp)) {
                        cliB[0] += bytes; cliB[1] += segs;
                    }
                }
                sb.append(String.format(Locale.ROOT, "  peer links: %.1f B/txn, %.3f segs/txn; client replies: %.1f B/txn, %.3f segs/txn%n",
                        peerB[0] / (double) n, peerB[1] / (double) n, cliB[0] / (double) n, cliB[1] / (double) n));
                for (var l : perLink.entrySet()) {
                    sb.append(String.format(Locale.ROOT, "      %s %.1f B/txn %.3f segs/txn%n", l.getKey(), l.getValue()[0] / (double) n, l.getValue()[1] / (double) n));
                }
                sb.append("  ports: ");
                for (int i = 0; i < 3; i++) sb.append(i).append(role[i]).append(" client ").append(e.members().get(i).clientPort()).append(" peer ").append(e.members().get(i).peerPort()).append(" elect ").append(e.members().get(i).electionPort()).append("; ");
                sb.append('\n');
                System.out.print(sb);
                Files.writeString(out.resolve("summary-" + which + ".txt"), sb.toString(), StandardOpenOption.CREATE, StandardOpenOption.APPEND);
            }
        } finally {
            e.close();
        }
        System.exit(0);
    }
}
