package dev.zkr.recipes;

import dev.zkr.client.ZkClient;
import dev.zkr.client.ZkException;
import dev.zkr.testkit.TestEnsemble;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * CURATOR-311 (SharedValue holds stale data after a quorum membership change), on a 3-server ensemble: the reader's
 * only server is cut off from the quorum while the value moves on; a compare-and-set at the stale version fails,
 * and once the server is back the reader's value catches up with the latest one and never went backwards.
 */
class SharedValueEnsembleTest {

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static void eventually(String what, BooleanSupplier condition) {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not within 30 s: " + what);
            }
            LockSupport.parkNanos(5_000_000); // polling the recipe's local copy
        }
    }

    @Test
    void curator311AReaderCutOffFromTheQuorumCatchesUpAndItsStaleCasFails() throws Exception {
        try (TestEnsemble e = TestEnsemble.builder().servers(3).start()) {
            int leader = e.leader();
            int cut = (leader + 1) % 3;
            int other = (leader + 2) % 3;
            ZkClient readerClient = e.newClient(b -> b.connectString(e.connectString(cut))
                    .sessionTimeout(Duration.ofSeconds(20)));
            ZkClient writerClient = e.newClient(b -> b.connectString(e.connectString(leader) + ","
                    + e.connectString(other)).sessionTimeout(Duration.ofSeconds(20)));
            SharedValue reader = Recipes.using(readerClient).sharedValue("/v311").initial(bytes("0")).start();
            SharedValue writer = Recipes.using(writerClient).sharedValue("/v311").initial(bytes("0")).start();
            int[] lastSeen = {0};
            boolean[] wentBack = {false};
            reader.addListener(v -> {
                int n = Integer.parseInt(new String(v.value(), StandardCharsets.UTF_8));
                if (n < lastSeen[0]) {
                    wentBack[0] = true;
                }
                lastSeen[0] = Math.max(lastSeen[0], n);
            });
            for (int i = 1; i <= 3; i++) {
                writer.set(bytes(Integer.toString(i)));
            }
            eventually("the reader sees 3", () -> reader.get().version() == 3);

            e.isolate(cut); // the reader's server leaves the quorum
            for (int i = 4; i <= 10; i++) {
                setRetrying(writer, i);
            }
            // the reader's compare-and-set at the version it holds: its recipe retries until its server is back
            java.util.concurrent.CompletableFuture<Boolean> staleCas =
                    java.util.concurrent.CompletableFuture.supplyAsync(() -> reader.trySet(3, bytes("stale")));
            e.heal();
            assertFalse(staleCas.get(60, java.util.concurrent.TimeUnit.SECONDS),
                    "a compare-and-set at the version the reader held must not succeed");
            eventually("the reader catches up with the latest value",
                    () -> "10".equals(new String(reader.get().value(), StandardCharsets.UTF_8)));
            assertEquals(10, reader.get().version());
            assertTrue(writer.trySet(10, bytes("11")), "nothing but the writer's values were applied");
            eventually("the reader sees 11 too", () -> reader.get().version() == 11);
            assertFalse(wentBack[0], "the reader's listener never saw the value go back");
            reader.close();
            writer.close();
        }
    }

    private static void setRetrying(SharedValue v, int n) {
        for (int attempt = 0; ; attempt++) {
            try {
                v.set(bytes(Integer.toString(n)));
                return;
            } catch (ZkException.ConnectionLoss e) {
                if (attempt == 20) {
                    throw e;
                }
            }
        }
    }
}
