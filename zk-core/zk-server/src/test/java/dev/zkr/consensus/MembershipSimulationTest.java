package dev.zkr.consensus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The random consensus simulator with membership changes (docs/membership.md, Tests): 3 or 5 voters and 3 fresh
 * servers; during the faults the leader adds a fresh server as a learner, promotes learners, removes members (itself
 * included), and removed servers keep running. Every invariant of {@link Sim} holds, and those of the membership: one
 * leader per epoch across memberships, commits on a majority of the voters counted with, every replica's membership
 * history a prefix of the committed one, a leader whose removal committed no longer leads. 50 seeds under
 * {@code mvn verify}, 10,000 under {@code -Plong}; {@code -Dzkr.membership.seeds=N}, {@code -Dzkr.membership.firstSeed=F};
 * {@code -Dzkr.membership.seed=S} replays one seed with its full trace.
 */
class MembershipSimulationTest {
    static long seedCount() {
        String explicit = System.getProperty("zkr.membership.seeds");
        if (explicit != null) {
            return Long.parseLong(explicit);
        }
        return Integer.getInteger("jqwik.tries.default", 25) >= 500 ? 10_000 : 50;
    }

    static Sim.Options options(long seed, boolean fullTrace) {
        return Sim.Options.randomMembership(seed % 3 == 0 ? 5 : 3, 3, fullTrace);
    }

    static Sim run(long seed, Mutations mutations, boolean fullTrace) {
        Sim sim = new Sim(seed, options(seed, fullTrace), mutations);
        sim.run(sim.options.faultUnits());
        sim.checkLiveness(SimulationTest.SETTLE, SimulationTest.WINDOW);
        return sim;
    }

    static Throwable failureOf(long seed, Mutations mutations) {
        try {
            run(seed, mutations, false);
            return null;
        } catch (AssertionError | RuntimeException e) {
            return e;
        }
    }

    static String report(long seed, Mutations mutations, Throwable failure) {
        Path file = Path.of("target", "zkr-sim", "membership-seed-" + seed + ".trace");
        Sim replay = new Sim(seed, options(seed, true), mutations);
        try {
            replay.run(replay.options.faultUnits());
            replay.checkLiveness(SimulationTest.SETTLE, SimulationTest.WINDOW);
        } catch (AssertionError | RuntimeException e) {
            // the trace up to the failure is what we want
        }
        String t = replay.trace();
        try {
            Files.createDirectories(file.getParent());
            Files.writeString(file, t);
        } catch (IOException e) {
            return "seed " + seed + " failed: " + failure + " (trace not written: " + e + ")";
        }
        int cut = t.length() > 6000 ? t.indexOf('\n', t.length() - 6000) + 1 : 0;
        return "seed " + seed + " failed: " + failure + "\n(replay: -Dzkr.membership.seed=" + seed + "; full trace in "
                + file.toAbsolutePath() + ")\n... last events:\n" + t.substring(cut);
    }

    @Test
    void everySeedKeepsTheInvariantsAcrossMembershipChanges() {
        String one = System.getProperty("zkr.membership.seed");
        if (one != null) {
            long seed = Long.parseLong(one);
            Sim sim = new Sim(seed, options(seed, true), Mutations.NONE);
            try {
                sim.run(sim.options.faultUnits());
                sim.checkLiveness(SimulationTest.SETTLE, SimulationTest.WINDOW);
            } finally {
                System.out.print(sim.trace());
            }
            return;
        }
        long seeds = seedCount();
        long first = Long.getLong("zkr.membership.firstSeed", 1);
        Sim.Stats total = new Sim.Stats();
        long start = System.nanoTime();
        for (long seed = first; seed < first + seeds; seed++) {
            Sim sim;
            try {
                sim = run(seed, Mutations.NONE, false);
            } catch (AssertionError | RuntimeException e) {
                fail(report(seed, Mutations.NONE, e));
                return;
            }
            total.add(sim.stats);
        }
        double secs = (System.nanoTime() - start) / 1e9;
        System.out.printf("zkr.membership: %d seeds in %.1f s, per seed %d events, %d faults: %s%n", seeds, secs,
                total.events / seeds, total.faults / seeds, total);
        if (seeds >= 20) { // the runs exercised what they claim: changes, leaders removing themselves
            assertTrue(total.membershipChanges >= seeds, "membership changes: " + total.membershipChanges);
            assertTrue(total.leadersRemoved > 0, "no leader removed itself in " + seeds + " seeds");
        }
    }

    @Test
    void aSeedReplaysIdentically() {
        for (long seed = 1; seed <= 5; seed++) {
            assertEquals(run(seed, Mutations.NONE, true).trace(), run(seed, Mutations.NONE, true).trace(),
                    "seed " + seed);
        }
    }
}
