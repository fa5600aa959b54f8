package dev.zkr.consensus;

import dev.zkr.server.round.TraceHashFixture;
import org.junit.jupiter.api.Test;

/**
 * The consensus simulator's trace hashes against a checked-in fixture (src/test/resources/dev/zkr/consensus/
 * trace-hashes.txt): the consensus half of the proof that the zk-server reshape changes no behaviour. Each seed runs
 * {@link Sim} as {@link SimulationTest} does ({@code Options.random(nodes(seed), true)}, faults, then the liveness
 * check) and must end ("ok" or "fail") with the trace hash recorded. The ensemble size follows the seed
 * ({@link SimulationTest#nodes}: every 4th seed 5 replicas, seeds ending in 5 one, the others 3).
 *
 * <p>{@code mvn verify} checks the first 50 seeds; {@code -Plong} all 2,000:
 * {@code mvn -B -q -pl zk-core/zk-server -am test -Dtest='TraceHashesTest' -Dsurefire.failIfNoSpecifiedTests=false
 * -Plong}. Regenerate with {@code -Dzkr.traceHashes.write=true}; see {@link TraceHashFixture}.
 */
class TraceHashesTest {

    static final String FIXTURE = "dev/zkr/consensus/trace-hashes.txt";

    static TraceHashFixture.Run run(long seed) {
        int n = SimulationTest.nodes(seed);
        Sim sim = new Sim(seed, Sim.Options.random(n, true), Mutations.NONE);
        String outcome = "ok";
        try {
            sim.run(sim.options.faultUnits());
            sim.checkLiveness(SimulationTest.SETTLE, SimulationTest.WINDOW);
        } catch (AssertionError | RuntimeException e) {
            outcome = "fail";
        }
        return new TraceHashFixture.Run(n, outcome, sim.traceHash(), sim.trace());
    }

    @Test
    void everySeedGivesTheRecordedTraceHash() {
        TraceHashFixture.check(FIXTURE, "the consensus simulator (Sim, Options.random(nodes(seed), true), then"
                        + " checkLiveness)",
                "mvn -B -q -pl zk-core/zk-server -am test -Dtest=dev.zkr.consensus.TraceHashesTest"
                        + " -Dsurefire.failIfNoSpecifiedTests=false -Dzkr.traceHashes.write=true",
                "mvn -B -q -pl zk-core/zk-server -am test -Dtest='SimulationTest#everySeedKeepsTheInvariantsAndRecovers'"
                        + " -Dsurefire.failIfNoSpecifiedTests=false -Dzkr.sim.seed=%d",
                TraceHashesTest::run);
    }
}
