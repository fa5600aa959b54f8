package dev.zkr.server.round;

import org.junit.jupiter.api.Test;

/**
 * The whole-server simulator's trace hashes against a checked-in fixture (src/test/resources/dev/zkr/server/
 * trace-hashes.txt): the proof that the zk-server reshape (packages moved, {@link Pipeline} split by role) changes no
 * behaviour. Each seed runs {@link ServerSim} with {@code Options.standard(seed, true).withNewFaults().withAcls()} —
 * the random runs of {@link ServerSimTest} with the clients' ACL traffic — and must end ("ok" or "fail") with the trace
 * hash recorded. The ensemble size follows the seed ({@code Options.standard}: every 4th seed 5 servers, seeds ending
 * in 5 one, the others 3).
 *
 * <p>{@code mvn verify} checks the first 50 seeds; {@code -Plong} all 2,000:
 * {@code mvn -B -q -pl zk-core/zk-server -am test -Dtest='TraceHashesTest' -Dsurefire.failIfNoSpecifiedTests=false
 * -Plong}. Regenerate (only for a change that is meant to change behaviour) with {@code -Dzkr.traceHashes.write=true};
 * see {@link TraceHashFixture}.
 */
class TraceHashesTest {

    static final String FIXTURE = "dev/zkr/server/trace-hashes.txt";

    static ServerSim.Options options(long seed) {
        return ServerSim.Options.standard(seed, true).withNewFaults().withAcls();
    }

    static TraceHashFixture.Run run(long seed) {
        ServerSim sim = new ServerSim(seed, options(seed));
        String outcome = "ok";
        try {
            sim.run();
        } catch (AssertionError | RuntimeException e) {
            outcome = "fail";
        }
        return new TraceHashFixture.Run(sim.options.servers(), outcome, sim.traceHash(), sim.trace());
    }

    @Test
    void everySeedGivesTheRecordedTraceHash() {
        TraceHashFixture.check(FIXTURE, "the whole-server simulator (ServerSim, Options.standard(seed, true)"
                        + ".withNewFaults().withAcls())",
                "mvn -B -q -pl zk-core/zk-server -am test -Dtest=dev.zkr.server.round.TraceHashesTest"
                        + " -Dsurefire.failIfNoSpecifiedTests=false -Dzkr.traceHashes.write=true",
                "mvn -B -q -pl zk-core/zk-server -am test -Dtest='ServerSimTest#everySeedKeepsTheInvariantsAndHistoriesCheck'"
                        + " -Dsurefire.failIfNoSpecifiedTests=false -Dzkr.sim.acls=true -Dzkr.sim.seed=%d",
                TraceHashesTest::run);
    }
}
