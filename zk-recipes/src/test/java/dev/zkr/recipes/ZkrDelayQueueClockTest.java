package dev.zkr.recipes;

import dev.zkr.client.CreateMode;
import dev.zkr.client.Parents;
import dev.zkr.client.ZkClient;
import dev.zkr.client.ZkException;
import dev.zkr.testkit.TestEnsemble;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static dev.zkr.recipes.QueueSuite.STRINGS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Delay queues count on the server's clock, not the clients': zkr servers whose wall clock is an hour behind, or
 * ahead of, the clients' (Curator's {@code DistributedDelayQueue} stamps items with the producer's clock and
 * compares with the consumer's: a consumer whose clock is ahead takes items early, one whose clock is behind takes
 * them late, by the whole skew).
 */
@Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class ZkrDelayQueueClockTest {

    private static final long HOUR = TimeUnit.HOURS.toMillis(1);

    private static TestEnsemble serverWithClockOffBy(long millis) {
        return TestEnsemble.builder().servers(1)
                .configure(b -> b.wallClock(() -> System.currentTimeMillis() + millis)).start();
    }

    private static long serverTime(ZkClient c) {
        try {
            return c.setData("/testclock", new byte[0], -1).mtime();
        } catch (ZkException.NoNode e) {
            return c.createWithStat("/testclock", new byte[0], CreateMode.PERSISTENT, Parents.NONE).stat().mtime();
        }
    }

    /** The clients' clocks are an hour ahead: a consumer going by its own clock would take the item at once. */
    @Test
    void clientsAheadOfTheServerDoNotTakeItemsEarly() throws Exception {
        try (TestEnsemble ensemble = serverWithClockOffBy(-HOUR)) {
            ZkClient c = ensemble.newClient();
            assertTrue(System.currentTimeMillis() - serverTime(c) > HOUR / 2, "the server's clock is behind");
            DistributedDelayQueue<String> q = Recipes.using(c).queue("/q").serializer(STRINGS).delay().build();
            long before = serverTime(c);
            q.offer("x", Duration.ofMillis(1500));
            assertEquals(Optional.empty(), q.poll(Duration.ofMillis(200)));
            CompletableFuture<String> async = q.takeAsync();
            assertEquals("x", async.get(20, TimeUnit.SECONDS));
            assertTrue(serverTime(c) - before >= 1500, "taken no earlier than its time on the server's clock");
            q.close();
        }
    }

    /**
     * The clients' clocks are an hour behind: a producer going by its own clock would make the item due at once
     * on the server's, a consumer going by its own would wait an hour.
     */
    @Test
    void clientsBehindTheServerTakeItemsInTime() {
        try (TestEnsemble ensemble = serverWithClockOffBy(HOUR)) {
            ZkClient c = ensemble.newClient();
            assertTrue(serverTime(c) - System.currentTimeMillis() > HOUR / 2, "the server's clock is ahead");
            DistributedDelayQueue<String> q = Recipes.using(c).queue("/q").serializer(STRINGS).delay().build();
            long before = serverTime(c);
            q.offer("x", Duration.ofMillis(1500));
            assertEquals(Optional.empty(), q.poll(Duration.ofMillis(200)));
            assertEquals("x", q.poll(Duration.ofSeconds(20)).orElseThrow());
            assertTrue(serverTime(c) - before >= 1500, "taken no earlier than its time on the server's clock");
            q.close();
        }
    }
}
