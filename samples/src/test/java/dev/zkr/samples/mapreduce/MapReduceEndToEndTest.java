package dev.zkr.samples.mapreduce;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Runs the coordinator on the embedded 3-server ensemble with real faults (sessions expired by the server, as after
 * a crash; servers killed abruptly and restarted) and checks the result word for word against a single-threaded
 * count. The timeout only guards against a hang (a job gives up after its own 180 s).
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class MapReduceEndToEndTest {

    private static final JobOptions SMALL = JobOptions.defaults().withSize(7, 1 << 20, 16);

    @TempDir
    Path out;

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
        assertNull(r.serverKill());
        // it died holding the commit lock; its lock node went with its session and another worker committed
        String killed = r.output().stream().filter(l -> l.contains(" killed in the middle of reduce")).findFirst()
                .orElseThrow(() -> new AssertionError("no kill line:\n" + String.join("\n", r.output())));
        Matcher m = Pattern.compile("! (worker-\\d+) killed .* holding task reduce-(\\d+) and the commit lock")
                .matcher(killed);
        assertTrue(m.find(), killed);
        Manifest manifest = JobOutput.readManifest(r.outputDir());
        assertEquals(SMALL.reducers(), manifest.partitions().size(), manifest::encode);
        assertNotEquals(m.group(1), manifest.partitions().get(Integer.parseInt(m.group(2))).worker(),
                manifest::encode);
    }

    @Test
    void leaderServerKilledInMapAndMasterKilledInReduce() {
        JobResult r = run(SMALL.withKillServer(new ServerKill(ServerKill.Role.LEADER, Phase.MAP))
                .withKillMaster(Phase.REDUCE));

        assertTrue(r.correct(), r.verdict());
        ServerKillReport k = r.serverKill();
        assertNotNull(k, "the server kill fired");
        assertEquals(ServerKill.Role.LEADER, k.role());
        assertEquals(3, k.servers());
        assertEquals(k.index() + 1, k.serverId());
        assertTrue(k.restarted());
        assertTrue(k.pauseMillis() >= 0);
        assertPrinted(r, String.format("! server %d (id %d, leader) killed in the middle of map", k.index(),
                k.serverId()), "2 of 3 servers run", "writes paused");
        assertTrue(r.masterKilled());
        assertEquals(List.of("master-1", "master-2"), r.phaseMasters().get(Phase.REDUCE));
    }

    @Test
    void followerServerKilledInShuffleAndWorkerKilledInShuffle() {
        JobResult r = run(SMALL.withKillServer(new ServerKill(ServerKill.Role.FOLLOWER, Phase.SHUFFLE))
                .withKillWorker(KillPoint.SHUFFLE));

        assertTrue(r.correct(), r.verdict());
        ServerKillReport k = r.serverKill();
        assertNotNull(k, "the server kill fired");
        assertEquals(ServerKill.Role.FOLLOWER, k.role());
        assertTrue(k.restarted());
        assertPrinted(r, String.format("! server %d (id %d, follower) killed in the middle of shuffle", k.index(),
                k.serverId()), "2 of 3 servers run", "writes paused");
        assertTrue(r.redone() >= 1, "the dead worker's shuffle task was claimed again: " + r.redone());
    }

    private static void assertPrinted(JobResult r, String... parts) {
        for (String part : parts) {
            assertTrue(r.output().stream().anyMatch(line -> line.contains(part)),
                    "no line contains '" + part + "':\n" + String.join("\n", r.output()));
        }
    }

    private JobResult run(JobOptions options) {
        try (Cluster cluster = Cluster.embedded()) {
            return MapReduceJob.run(options.withOutputDir(out), cluster, System.out);
        }
    }
}
