package dev.zkr.server.round;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The whole-server simulator over many seeds ({@link ServerSim}): 1, 3 or 5 servers running the real pipeline, with
 * simulated clients, crashes and restarts, peer-link faults, invariants after every event and zk-check's history
 * checks at the end. 200 seeds under {@code mvn verify}, 5,000 under {@code -Plong} (follows
 * {@code jqwik.tries.default}); {@code -Dzkr.sim.seeds=N} and {@code -Dzkr.sim.firstSeed=F} choose others;
 * {@code -Dzkr.sim.seed=S} replays one seed and prints its full trace. A failing seed prints its last events and
 * writes the full trace to target/zkr-sim/; {@code -Dzkr.sim.keepGoing=true} runs every seed and lists the failing
 * ones at the end (for a survey; replay each with {@code -Dzkr.sim.seed}).
 *
 * <p>{@code -Dzkr.sim.acls=true} adds the clients' ACL traffic ({@link ServerSim.Options#withAcls()}) to the
 * seeds of the two tests above and to a replay; {@link #aclSeedsKeepTheInvariantsAndHistoriesCheck} runs it always.
 *
 * <p>{@code -Dzkr.sim.ttl=true} likewise adds TTL-node traffic ({@link ServerSim.Options#withTtl()});
 * {@link #ttlSeedsKeepTheInvariantsAndHistoriesCheck} runs it always.
 *
 * <p>{@code -Dzkr.sim.batched=true} likewise runs them with batched rounds ({@link
 * ServerSim.Options#withBatchedRounds()}); {@link #batchedRoundSeedsKeepTheInvariantsAndHistoriesCheck} runs it
 * always.
 *
 * <p>{@code -Dzkr.sim.narrow=true} narrows the random runs ({@link #narrowed}: no peer-link loss, no client write
 * sent while a read of its session waits), as they were while the first bugs of {@link ServerSimRegressionTest}
 * were open.
 */
class ServerSimTest {

    static long seedCount() {
        String explicit = System.getProperty("zkr.sim.seeds");
        if (explicit != null) {
            return Long.parseLong(explicit);
        }
        return Integer.getInteger("jqwik.tries.default", 25) >= 500 ? 5_000 : 200;
    }

    /** A seed's options for the random runs: the standard shape, narrowed while the known bugs are open. */
    static ServerSim.Options narrowed(long seed, boolean fullTrace) {
        ServerSim.Options o = ServerSim.Options.standard(seed, fullTrace);
        if (Boolean.parseBoolean(System.getProperty("zkr.sim.newFaults", "true"))) {
            o = o.withNewFaults();
        }
        if (Boolean.parseBoolean(System.getProperty("zkr.sim.narrow", "false"))) {
            o = o.withoutPeerLoss().withoutWritesAfterReads();
        }
        if (Boolean.getBoolean("zkr.sim.acls")) {
            o = o.withAcls();
        }
        if (Boolean.getBoolean("zkr.sim.resend")) {
            o = o.withResend();
        }
        if (Boolean.getBoolean("zkr.sim.ttl")) {
            o = o.withTtl();
        }
        if (Boolean.getBoolean("zkr.sim.batched")) {
            o = o.withBatchedRounds();
        }
        return o;
    }

    /** Runs one seed; returns its failure or null. */
    static Throwable failureOf(long seed, ServerSim.Options options) {
        try {
            new ServerSim(seed, options).run();
            return null;
        } catch (AssertionError | RuntimeException e) {
            return e;
        }
    }

    /** The failure with the seed, how to replay it, the last events; the full trace goes to a file. */
    static String report(long seed, ServerSim.Options options, Throwable failure) {
        ServerSim replay = new ServerSim(seed, options.withFullTrace());
        try {
            replay.run();
        } catch (AssertionError | RuntimeException e) {
            // the trace up to the failure is what we want
        }
        Path file = Path.of("target", "zkr-sim", "server-seed-" + seed + ".trace");
        String where;
        try {
            Files.createDirectories(file.getParent());
            Files.writeString(file, replay.trace());
            where = "full trace in " + file.toAbsolutePath();
        } catch (IOException e) {
            where = "trace not written: " + e;
        }
        return "seed " + seed + " failed: " + failure + "\n(replay: -Dzkr.sim.seed=" + seed
                + (options.acls() ? " -Dzkr.sim.acls=true" : "") + (options.resend() ? " -Dzkr.sim.resend=true" : "")
                + (options.ttl() ? " -Dzkr.sim.ttl=true" : "")
                + (options.batchedRounds() ? " -Dzkr.sim.batched=true" : "") + "; " + where
                + ")\n... last events:\n" + replay.recentTrace();
    }

    @Test
    void everySeedKeepsTheInvariantsAndHistoriesCheck() {
        runSeeds("zkr.sim", "server", seedCount(), ServerSimTest::narrowed);
    }

    /**
     * Runs one replayed seed with its trace ({@code -D<prefix>.seed=S}), or {@code seeds} seeds from
     * {@code -D<prefix>.firstSeed} (1), failing at the first failure unless {@code -Dzkr.sim.keepGoing=true} (then
     * after all, listing them); prints one line of totals labelled {@code label}. Returns the totals, null for a replay.
     */
    static ServerSim.Stats runSeeds(String prefix, String label, long seeds,
                                    java.util.function.BiFunction<Long, Boolean, ServerSim.Options> optionsOf) {
        String one = System.getProperty(prefix + ".seed");
        if (one != null) {
            long seed = Long.parseLong(one);
            ServerSim sim = new ServerSim(seed, optionsOf.apply(seed, true));
            try {
                sim.run();
            } finally {
                System.out.print(sim.trace());
                System.out.println("seed " + seed + " trace hash " + Long.toHexString(sim.traceHash()) + "; "
                        + sim.stats);
            }
            return null;
        }
        long first = Long.getLong(prefix + ".firstSeed", 1);
        boolean keepGoing = Boolean.getBoolean("zkr.sim.keepGoing");
        List<String> failed = new ArrayList<>();
        ServerSim.Stats total = new ServerSim.Stats();
        long start = System.nanoTime();
        for (long seed = first; seed < first + seeds; seed++) {
            ServerSim.Options options = optionsOf.apply(seed, false);
            ServerSim sim = new ServerSim(seed, options);
            try {
                sim.run();
            } catch (AssertionError | RuntimeException e) {
                if (!keepGoing) {
                    fail(report(seed, options, e).replace("-Dzkr.sim.seed=", "-D" + prefix + ".seed="), e);
                    return total;
                }
                failed.add("seed " + seed + ": " + e);
            }
            total.add(sim.stats);
        }
        double secs = (System.nanoTime() - start) / 1e9;
        System.out.printf("zkr.sim (%s): %d seeds from %d in %.1f s (%.0f seeds/s); per seed %d events, %d client ops;"
                + " total: %s%n", label, seeds, first, secs, seeds / secs, total.events / seeds, total.ops / seeds,
                total);
        if (!failed.isEmpty()) {
            fail(failed.size() + " of " + seeds + " seeds failed:\n" + String.join("\n", failed));
        }
        return total;
    }

    /**
     * The standalone server's seeds: the same faults, clients and checks on one server, 200 seeds (5,000 under
     * {@code -Plong}).
     */
    @Test
    void everyStandaloneSeedKeepsTheInvariantsAndHistoriesCheck() {
        long seeds = seedCount();
        long first = Long.getLong("zkr.sim.firstSeed", 1);
        ServerSim.Stats total = new ServerSim.Stats();
        long start = System.nanoTime();
        for (long seed = first; seed < first + seeds; seed++) {
            total.add(runOrFail(seed, narrowed(seed, false).withServers(1)).stats);
        }
        double secs = (System.nanoTime() - start) / 1e9;
        System.out.printf("zkr.sim (server, standalone): %d seeds in %.1f s (%.0f seeds/s); per seed %d events, %d"
                + " client ops; total: %s%n", seeds, secs, seeds / secs, total.events / seeds, total.ops / seeds, total);
    }

    /**
     * Snapshot seeds (half of those with the new faults) purge logs with a tiny retention: over a batch of seeds a
     * follower behind a leader's log start is synced by SNAP through the real SnapshotSender and SnapshotReceiver,
     * and installs the snapshot.
     */
    @Test
    void laggingFollowersAreSyncedBySnap() {
        ServerSim.Stats total = new ServerSim.Stats();
        java.util.List<Long> withInstalls = new java.util.ArrayList<>();
        for (long seed = 1; seed <= 100; seed++) {
            ServerSim sim = new ServerSim(seed, ServerSim.Options.standard(seed, false).withNewFaults());
            sim.run();
            total.add(sim.stats);
            if (sim.stats.snapInstalls > 0) {
                withInstalls.add(seed);
            }
        }
        System.out.println("zkr.sim (server, SNAP): seeds 1-100: " + total.snapSyncs + " SNAP syncs, " + total.snapInstalls
                + " installs (seeds " + withInstalls + "), " + total.snapshots + " snapshots, " + total.purged
                + " records purged");
        assertTrue(total.snapSyncs > 0 && total.snapInstalls > 0, "no SNAP in seeds 1-100: " + total);
    }

    /**
     * Seeds with the clients' ACL traffic (creates with an ACL, setAcl, getAcl; {@link SimAcls}) through the same
     * faults, snapshots and SNAP installs: the tree digests compare every node's ACL and aversion across servers and
     * incarnations, every ACL version a client sees is one value, the ACL table holds exactly the ACLs in use. 150
     * seeds of the usual shapes and 100 standalone ones (3,750 and 2,500 under {@code -Plong}; {@code -Dzkr.sim.seeds}
     * scales both).
     */
    @Test
    void aclSeedsKeepTheInvariantsAndHistoriesCheck() {
        long seeds = seedCount() * 3 / 4;
        long first = Long.getLong("zkr.sim.firstSeed", 1);
        ServerSim.Stats total = new ServerSim.Stats();
        List<Long> withInstalls = new ArrayList<>();
        long start = System.nanoTime();
        for (int standalone = 0; standalone < 2; standalone++) {
            long n = standalone == 0 ? seeds : seeds * 2 / 3;
            for (long seed = first; seed < first + n; seed++) {
                ServerSim.Options options = narrowed(seed, false).withAcls();
                if (standalone == 1) {
                    options = options.withServers(1);
                }
                ServerSim sim = runOrFail(seed, options);
                total.add(sim.stats);
                if (sim.stats.snapInstalls > 0 && withInstalls.size() < 20) {
                    withInstalls.add(seed);
                }
            }
        }
        double secs = (System.nanoTime() - start) / 1e9;
        System.out.printf("zkr.sim (server, ACLs): %d + %d standalone seeds in %.1f s; SNAP installs in seeds %s;"
                + " total: %s%n", seeds, seeds * 2 / 3, secs, withInstalls, total);
        assertTrue(total.setAcls > 0 && total.getAcls > 0 && total.aclCreates > 0 && total.aclSights > 0,
                "no ACL traffic: " + total);
        assertTrue(total.maxDistinctAcls >= 3, "at most " + total.maxDistinctAcls + " distinct ACLs in a tree");
        assertTrue(seeds < 100 || total.snapInstalls > 0, "no SNAP install with ACL traffic: " + total);
    }

    /**
     * Exactly-once clients (docs/exactly-once.md): writes in flight are sent again with their xids after a dropped
     * connection, clients drop their connections just after a write now and then; the usual shapes (as many seeds
     * as the ACL seeds) and standalone ones (two thirds of that). Every seed must pass every check, the end-of-run
     * "every write applied at most once, every acknowledged one exactly once" and "no write answered
     * CONNECTION_LOSS while its session lives" among them; and the runs must have sent writes again.
     */
    @Test
    void exactlyOnceSeedsApplyEveryWriteAtMostOnce() {
        long seeds = seedCount() * 3 / 4;
        long first = Long.getLong("zkr.sim.firstSeed", 1);
        ServerSim.Stats total = new ServerSim.Stats();
        long start = System.nanoTime();
        for (int standalone = 0; standalone < 2; standalone++) {
            long n = standalone == 0 ? seeds : seeds * 2 / 3;
            for (long seed = first; seed < first + n; seed++) {
                ServerSim.Options options = narrowed(seed, false).withResend();
                if (standalone == 1) {
                    options = options.withServers(1);
                }
                total.add(runOrFail(seed, options).stats);
            }
        }
        double secs = (System.nanoTime() - start) / 1e9;
        System.out.printf("zkr.sim (server, exactly-once): %d + %d standalone seeds in %.1f s; total: %s%n", seeds,
                seeds * 2 / 3, secs, total);
        assertTrue(total.resent > 0 && total.dropsAfterWrite > 0, "no write sent again: " + total);
    }

    /**
     * Seeds with TTL-node traffic ({@link ServerSim.Options#withTtl()}: TTL nodes created, renewed, held by children,
     * deleted by whichever server leads once expired) through the same faults, snapshots and SNAP installs: the tree
     * digests compare every node, TTL included, across servers and incarnations, and the histories of the other
     * keys still check. 50 seeds of the usual shapes and 25 standalone ones (1,250 and 625 under {@code -Plong};
     * {@code -Dzkr.sim.seeds} scales both).
     */
    @Test
    void ttlSeedsKeepTheInvariantsAndHistoriesCheck() {
        long seeds = seedCount() / 4;
        long first = Long.getLong("zkr.sim.firstSeed", 1);
        ServerSim.Stats total = new ServerSim.Stats();
        long start = System.nanoTime();
        for (int standalone = 0; standalone < 2; standalone++) {
            long n = standalone == 0 ? seeds : seeds / 2;
            for (long seed = first; seed < first + n; seed++) {
                ServerSim.Options options = narrowed(seed, false).withTtl();
                if (standalone == 1) {
                    options = options.withServers(1);
                }
                total.add(runOrFail(seed, options).stats);
            }
        }
        double secs = (System.nanoTime() - start) / 1e9;
        System.out.printf("zkr.sim (server, TTL nodes): %d + %d standalone seeds in %.1f s; total: %s%n", seeds,
                seeds / 2, secs, total);
        assertTrue(total.ttlCreates > 0 && total.ttlDeletes > 0, "no TTL traffic or no expiry: " + total);
        assertTrue(seeds < 50 || total.snapInstalls > 0, "no SNAP install with TTL traffic: " + total);
        assertTrue(total.snapshots > 0, "no snapshot with TTL traffic: " + total);
    }

    /**
     * Seeds with batched rounds ({@link ServerSim.Options#withBatchedRounds()}): peer messages from every peer taken
     * together in one round, so a leader handles a follower's ack and its next forwarded request in one round as a
     * busy server does (the clients check that a session once answered SESSION_EXPIRED never gets a write applied). 50 seeds of the usual shapes (1,250 under {@code -Plong};
     * {@code -Dzkr.sim.seeds} scales them).
     */
    @Test
    void batchedRoundSeedsKeepTheInvariantsAndHistoriesCheck() {
        long seeds = seedCount() / 4;
        long first = Long.getLong("zkr.sim.firstSeed", 1);
        ServerSim.Stats total = new ServerSim.Stats();
        long start = System.nanoTime();
        for (long seed = first; seed < first + seeds; seed++) {
            total.add(runOrFail(seed, narrowed(seed, false).withBatchedRounds()).stats);
        }
        double secs = (System.nanoTime() - start) / 1e9;
        System.out.printf("zkr.sim (server, batched rounds): %d seeds in %.1f s; total: %s%n", seeds, secs, total);
    }

    /** Runs one seed; a failure fails the test with the seed's report (how to replay it). */
    private static ServerSim runOrFail(long seed, ServerSim.Options options) {
        ServerSim sim = new ServerSim(seed, options);
        try {
            sim.run();
        } catch (AssertionError | RuntimeException e) {
            fail(report(seed, options, e), e);
        }
        return sim;
    }

    /** Two runs of a seed give the same trace, byte for byte (failing seeds included: their trace up to it). */
    @Test
    void aSeedReplaysIdentically() {
        for (long seed : new long[] {2, 12}) { // 3 servers; snapshots and a SNAP install
            ServerSim a = new ServerSim(seed, narrowed(seed, true));
            ServerSim b = new ServerSim(seed, narrowed(seed, true));
            String fa = String.valueOf(failure(a));
            String fb = String.valueOf(failure(b));
            assertEquals(fa, fb, "seed " + seed);
            assertEquals(a.trace(), b.trace(), "seed " + seed);
            assertEquals(a.traceHash(), b.traceHash(), "seed " + seed);
        }
    }

    private static String failure(ServerSim sim) {
        try {
            sim.run();
            return null;
        } catch (AssertionError | RuntimeException e) {
            return e.getMessage();
        }
    }
}
