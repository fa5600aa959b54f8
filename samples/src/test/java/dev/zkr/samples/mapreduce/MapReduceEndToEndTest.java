package dev.zkr.samples.mapreduce;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Runs the coordinator on an embedded ensemble with real faults (sessions expired by the server, as after a crash)
 * and checks the result word for word against a single-threaded count.
 */
class MapReduceEndToEndTest {

    private static final JobOptions SMALL = JobOptions.defaults().withSize(7, 1 << 20, 16);

    @Test
    void workerKilledInMapAndMasterKilledInShuffle() {
        JobResult r = run(SMALL.withKillWorker(KillPoint.MAP).withKillMaster(Phase.SHUFFLE));

        assertTrue(r.correct(), r.verdict());
        assertEquals(Corpus.count(Corpus.generate(7, 1 << 20)).size(), r.distinct());
        assertTrue(r.workerKilled() && r.masterKilled(), "both faults were injected");
        assertTrue(r.redone() >= 1, "the dead worker's map task was claimed again: " + r.redone());
        assertEquals(List.of("master-1"), r.phaseMasters().get(Phase.MAP));
        assertEquals(List.of("master-1", "master-2"), r.phaseMasters().get(Phase.SHUFFLE));
        assertEquals(List.of("master-2"), r.phaseMasters().get(Phase.REDUCE));
    }

    @Test
    void workerKilledBeforeTheBarrierAndMasterKilledInMap() {
        JobResult r = run(SMALL.withKillWorker(KillPoint.BARRIER).withKillMaster(Phase.MAP));

        assertTrue(r.correct(), r.verdict());
        assertTrue(r.workerKilled() && r.masterKilled(), "both faults were injected");
        assertEquals(2, r.barrierForms(), "the barrier was re-formed without the dead party");
        assertEquals(List.of("master-1", "master-2"), r.phaseMasters().get(Phase.MAP));
    }

    @Test
    void workerKilledInReduceWithoutOtherFaults() {
        JobResult r = run(SMALL.withKillWorker(KillPoint.REDUCE));

        assertTrue(r.correct(), r.verdict());
        assertTrue(r.redone() >= 1, "the dead worker's reduce task was claimed again: " + r.redone());
        assertEquals(1, r.barrierForms());
    }

    private static JobResult run(JobOptions options) {
        try (Cluster cluster = Cluster.embedded()) {
            return MapReduceJob.run(options, cluster, System.out);
        }
    }
}
