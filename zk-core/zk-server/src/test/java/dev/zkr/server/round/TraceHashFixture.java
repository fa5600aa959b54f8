package dev.zkr.server.round;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.LongFunction;

/**
 * A checked-in list of simulator trace hashes, one line per seed ({@code seed servers outcome hash}), and the check
 * that the simulator still produces them: the "before" of a no-behaviour-change refactor (issue: reshape zk-server).
 * Used by {@link TraceHashesTest} (whole-server simulator) and {@code dev.zkr.consensus.TraceHashesTest}.
 *
 * <p>The default build checks the first {@link #DEFAULT_SLICE} seeds of a fixture; {@code -Plong}
 * ({@code zkr.long=true}) or {@code -Dzkr.traceHashes.all=true} checks every seed in it;
 * {@code -Dzkr.traceHashes.slice=N} checks the first N. {@code -Dzkr.traceHashes.write=true} runs seeds
 * 1..{@code zkr.traceHashes.seeds} (default {@link #DEFAULT_SEEDS}) and rewrites the fixture under
 * src/test/resources instead of comparing.
 */
public final class TraceHashFixture {

    public static final int DEFAULT_SLICE = 50;
    public static final int DEFAULT_SEEDS = 2_000;
    private static final int SHOWN = 10;
    private static final int TRACES_WRITTEN = 3;

    /** One seed's run: its ensemble size, "ok" or "fail", the trace hash, and the full trace (for a mismatch). */
    public record Run(int servers, String outcome, long hash, String trace) {}

    private record Line(long seed, int servers, String outcome, long hash) {
        String text() {
            return seed + " " + servers + " " + outcome + " " + Long.toHexString(hash);
        }
    }

    private TraceHashFixture() {}

    /**
     * Compares (or, with {@code -Dzkr.traceHashes.write=true}, rewrites) {@code resource} (a classpath path such as
     * {@code dev/zkr/server/trace-hashes.txt}).
     *
     * @param what        the simulator and options, for the header and messages
     * @param regenerate  the command line that rewrites the fixture (for the header)
     * @param replay      the replay command of one seed, {@code %d} for the seed
     * @param run         runs one seed with the full trace on
     */
    public static void check(String resource, String what, String regenerate, String replay, LongFunction<Run> run) {
        if (Boolean.getBoolean("zkr.traceHashes.write")) {
            write(resource, what, regenerate, run);
            return;
        }
        Map<Long, Line> fixture = read(resource);
        int slice = Boolean.getBoolean("zkr.long") || Boolean.getBoolean("zkr.traceHashes.all")
                ? fixture.size() : Integer.getInteger("zkr.traceHashes.slice", DEFAULT_SLICE);
        List<String> diffs = new ArrayList<>();
        int[] byServers = new int[6];
        int checked = 0;
        long start = System.nanoTime();
        for (Line expected : fixture.values()) {
            if (checked == slice) {
                break;
            }
            checked++;
            Run r = run.apply(expected.seed());
            byServers[r.servers()]++;
            Line got = new Line(expected.seed(), r.servers(), r.outcome(), r.hash());
            if (!got.equals(expected)) {
                String where = diffs.size() < TRACES_WRITTEN ? writeTrace(resource, expected.seed(), r.trace()) : "";
                diffs.add("  seed " + expected.seed() + ": expected '" + expected.text() + "', got '" + got.text()
                        + "'" + where);
            }
        }
        double secs = (System.nanoTime() - start) / 1e9;
        String summary = String.format("%s: %d of %d seeds checked in %.1f s (1 server: %d, 3: %d, 5: %d)", resource,
                checked, fixture.size(), secs, byServers[1], byServers[3], byServers[5]);
        System.out.println("zkr.traceHashes " + summary + (diffs.isEmpty() ? ", all equal" : ", " + diffs.size()
                + " differ"));
        if (!diffs.isEmpty()) {
            long firstSeed = Long.parseLong(diffs.get(0).trim().split(" ")[1].replace(":", ""));
            fail(diffs.size() + " of " + checked + " seeds give another trace than the fixture (" + what + "); "
                    + summary + "\nfirst differing seeds (fixture line 'seed servers outcome hash'):\n"
                    + String.join("\n", diffs.subList(0, Math.min(SHOWN, diffs.size())))
                    + (diffs.size() > SHOWN ? "\n  ... and " + (diffs.size() - SHOWN) + " more" : "")
                    + "\nreplay one with its full trace: " + String.format(replay, firstSeed)
                    + "\n(run the same on the fixture's commit, named in its header, and diff the two traces)");
        }
        assertTrue(checked > 0, "empty fixture " + resource);
    }

    private static Map<Long, Line> read(String resource) {
        Map<Long, Line> lines = new TreeMap<>();
        try (InputStream in = TraceHashFixture.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                fail("no fixture " + resource + " on the test classpath (write it with -Dzkr.traceHashes.write=true)");
            }
            BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
            for (String l = r.readLine(); l != null; l = r.readLine()) {
                if (l.isBlank() || l.startsWith("#")) {
                    continue;
                }
                String[] f = l.trim().split("\\s+");
                Line line = new Line(Long.parseLong(f[0]), Integer.parseInt(f[1]), f[2], Long.parseUnsignedLong(f[3],
                        16));
                lines.put(line.seed(), line);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return lines;
    }

    private static void write(String resource, String what, String regenerate, LongFunction<Run> run) {
        long seeds = Long.getLong("zkr.traceHashes.seeds", DEFAULT_SEEDS);
        List<String> out = new ArrayList<>();
        int[] byServers = new int[6];
        int failed = 0;
        long start = System.nanoTime();
        for (long seed = 1; seed <= seeds; seed++) {
            Run r = run.apply(seed);
            byServers[r.servers()]++;
            if (!r.outcome().equals("ok")) {
                failed++;
            }
            out.add(new Line(seed, r.servers(), r.outcome(), r.hash()).text());
        }
        double secs = (System.nanoTime() - start) / 1e9;
        List<String> header = List.of(
                "# Trace hashes of " + what + ", seeds 1-" + seeds + ".",
                "# Produced by commit " + commit() + " (the code before the zk-server reshape; its tests only added).",
                "# " + seeds + " seeds: 1 server " + byServers[1] + ", 3 servers " + byServers[3] + ", 5 servers "
                        + byServers[5] + "; " + failed + " seed(s) end in a failure (outcome 'fail': its trace up to"
                        + " it); written in " + Math.round(secs) + " s.",
                "# Line: seed servers outcome(ok|fail) hash (FNV-1a 64 of the full trace, hex).",
                "# Regenerate (only when a behaviour change is meant): " + regenerate);
        Path file = Path.of(System.getProperty("basedir", "."), "src", "test", "resources", resource);
        try {
            Files.createDirectories(file.getParent());
            List<String> all = new ArrayList<>(header);
            all.addAll(out);
            Files.write(file, all, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        System.out.printf("zkr.traceHashes: wrote %s (%d seeds in %.1f s; 1 server %d, 3 servers %d, 5 servers %d;"
                + " %d fail)%n", file.toAbsolutePath(), seeds, secs, byServers[1], byServers[3], byServers[5], failed);
    }

    private static String writeTrace(String resource, long seed, String trace) {
        String[] parts = resource.replace(".txt", "").split("/");
        String name = parts.length > 1 ? parts[parts.length - 2] + "-" + parts[parts.length - 1] : parts[0];
        Path file = Path.of("target", "zkr-sim", name + "-seed-" + seed + ".trace");
        try {
            Files.createDirectories(file.getParent());
            Files.writeString(file, trace);
            return " (its trace: " + file.toAbsolutePath() + ")";
        } catch (IOException e) {
            return " (trace not written: " + e + ")";
        }
    }

    /** The commit of the working tree, marked "+changes" if it has uncommitted changes outside src/test. */
    public static String commit() {
        try {
            String head = git("rev-parse", "--short", "HEAD");
            boolean dirty = git("status", "--porcelain", "--untracked-files=no").lines()
                    .anyMatch(l -> !l.contains("/src/test/"));
            return head + (dirty ? "+changes" : "");
        } catch (IOException | InterruptedException e) {
            return "unknown";
        }
    }

    private static String git(String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>();
        cmd.add("git");
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        if (p.waitFor() != 0) {
            throw new IOException(out);
        }
        return out;
    }
}
