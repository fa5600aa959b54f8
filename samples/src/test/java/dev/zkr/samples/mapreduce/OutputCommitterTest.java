package dev.zkr.samples.mapreduce;

import dev.zkr.client.ZkClient;
import dev.zkr.recipes.Recipes;
import dev.zkr.testkit.TestEnsemble;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The output commit on a real zkr server: concurrent commits keep every partition; a stale holder is refused. */
@Timeout(value = 1, unit = TimeUnit.MINUTES)
class OutputCommitterTest {

    private static final String LOCK = "/job/commit-lock";

    @Test
    void commitsOfDifferentPartitionsAllReachTheManifest(@TempDir Path dir) throws Exception {
        int partitions = 8;
        try (TestEnsemble ensemble = TestEnsemble.builder().start()) {
            CompletableFuture<?>[] commits = new CompletableFuture<?>[partitions];
            ZkClient[] clients = new ZkClient[partitions];
            for (int p = 0; p < partitions; p++) {
                int part = p;
                clients[p] = ensemble.newClient();
                OutputCommitter c = new OutputCommitter(Recipes.using(clients[p]).lock(LOCK), dir, "worker-" + p);
                commits[p] = CompletableFuture.runAsync(
                        () -> c.commit(part, Nodes.utf8("w" + part + " 1\n"), 1, 1, token -> { }));
            }
            CompletableFuture.allOf(commits).get(30, TimeUnit.SECONDS);
            Manifest m = JobOutput.readManifest(dir);
            assertEquals(partitions, m.partitions().size(), m::encode);
            for (int p = 0; p < partitions; p++) {
                assertArrayEquals(Nodes.utf8("w" + p + " 1\n"), JobOutput.readPart(dir, p));
                assertEquals("worker-" + p, m.partitions().get(p).worker());
                clients[p].close();
            }
            assertEquals(m.partitions().values().stream().mapToLong(Manifest.Part::token).max().orElseThrow(),
                    m.token(), "the manifest records its last writer's token");
        }
    }

    @Test
    void aHolderWhoseSessionExpiredIsRefusedAndTheNextCommitProceeds(@TempDir Path dir) throws Exception {
        try (TestEnsemble ensemble = TestEnsemble.builder().start();
             ZkClient stale = ensemble.newClient();
             ZkClient next = ensemble.newClient()) {
            OutputCommitter staleCommitter = new OutputCommitter(Recipes.using(stale).lock(LOCK), dir, "worker-1");
            OutputCommitter nextCommitter = new OutputCommitter(Recipes.using(next).lock(LOCK), dir, "worker-2");
            long[] tokens = new long[2];
            OutputCommitter.Fenced refused = assertThrows(OutputCommitter.Fenced.class,
                    () -> staleCommitter.commit(0, Nodes.utf8("a 1\n"), 1, 1, token -> {
                        tokens[0] = token;
                        // paused inside the lock long enough for its session to expire and another to commit
                        ensemble.expireSession(stale.sessionId());
                        tokens[1] = nextCommitter.commit(1, Nodes.utf8("b 2\n"), 2, 1, t -> { });
                    }));

            assertTrue(tokens[1] > tokens[0], "the next holder's token is larger");
            assertTrue(refused.getMessage().startsWith("worker-1 "), refused.getMessage());
            Manifest m = JobOutput.readManifest(dir);
            assertEquals(tokens[1], m.token());
            assertFalse(m.partitions().containsKey(0), "the stale holder did not write the manifest: " + m.encode());
            assertEquals(new Manifest.Part(4, 2, 1, "worker-2", tokens[1]), m.partitions().get(1));
            assertTrue(Files.exists(JobOutput.part(dir, 1)));
        }
    }
}
