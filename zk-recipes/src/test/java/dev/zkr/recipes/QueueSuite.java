package dev.zkr.recipes;

import dev.zkr.client.ZkClient;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Queues: FIFO, exactly one consumer per item, timeouts, acknowledged redelivery, lost responses, no leaks. */
public abstract class QueueSuite extends RecipeSuite {

    static final QueueSerializer<String> STRINGS = new QueueSerializer<>() {
        @Override
        public byte[] serialize(String item) {
            return item.getBytes(StandardCharsets.UTF_8);
        }

        @Override
        public String deserialize(byte[] data) {
            return new String(data, StandardCharsets.UTF_8);
        }
    };

    private DistributedQueue<String> queue(ZkClient c, String p) {
        return Recipes.using(c).queue(p).serializer(STRINGS).build();
    }

    @Test
    void fifoForOneConsumer() {
        String p = path("fifo");
        ZkClient c = client();
        DistributedQueue<String> q = queue(c, p);
        for (int i = 0; i < 20; i++) {
            q.offer("i" + i);
        }
        assertEquals(20, q.size());
        for (int i = 0; i < 20; i++) {
            assertEquals("i" + i, q.take());
        }
        assertEquals(Optional.empty(), q.poll(Duration.ofMillis(200)));
        q.close();
        q.close();
        assertNoWatches(c);
    }

    @Test
    void byteItemsByDefault() {
        DistributedQueue<byte[]> q = Recipes.using(client()).queue(path("bytes")).build();
        q.offer(new byte[] {1, 2, 3});
        assertEquals(3, q.take().length);
        q.close();
    }

    @Test
    void everyItemGoesToExactlyOneConsumer() throws Exception {
        String p = path("many");
        int items = 60;
        List<String> got = Collections.synchronizedList(new ArrayList<>());
        List<DistributedQueue<String>> consumers = new ArrayList<>();
        List<Future<?>> fs = new ArrayList<>();
        java.util.concurrent.atomic.AtomicBoolean produced = new java.util.concurrent.atomic.AtomicBoolean();
        for (int i = 0; i < 3; i++) {
            DistributedQueue<String> q = queue(client(), p);
            consumers.add(q);
            fs.add(pool.submit(() -> {
                while (true) {
                    // stop on an empty poll that began after the last offer, however slow the producer was
                    boolean allOffered = produced.get();
                    Optional<String> item = q.poll(Duration.ofMillis(200));
                    if (item.isPresent()) {
                        got.add(item.get());
                    } else if (allOffered) {
                        return null;
                    }
                }
            }));
        }
        DistributedQueue<String> producer = queue(client(), p);
        for (int i = 0; i < items; i++) {
            producer.offer("x" + i);
        }
        produced.set(true);
        for (Future<?> f : fs) {
            f.get(60, TimeUnit.SECONDS);
        }
        assertEquals(items, got.size(), "no duplicates: " + got);
        assertEquals(items, new HashSet<>(got).size());
        consumers.forEach(DistributedQueue::close);
    }

    @Test
    void takeWaitsForAnOfferAndCloseUnblocksIt() throws Exception {
        String p = path("wait");
        ZkClient c = client();
        DistributedQueue<String> q = queue(c, p);
        Future<String> taking = pool.submit(q::take);
        assertThrows(java.util.concurrent.TimeoutException.class, () -> taking.get(200, TimeUnit.MILLISECONDS));
        queue(client(), p).offer("late");
        assertEquals("late", taking.get(20, TimeUnit.SECONDS));
        Future<String> blocked = pool.submit(q::take);
        eventually("a consumer waits", () -> !c.watchedPaths().isEmpty());
        q.close();
        java.util.concurrent.ExecutionException e = assertThrows(java.util.concurrent.ExecutionException.class,
                () -> blocked.get(20, TimeUnit.SECONDS));
        assertTrue(e.getCause() instanceof IllegalStateException, e.toString());
        assertNoWatches(c);
    }

    @Test
    void lostResponsesNeitherDuplicateNorLoseItems() {
        String p = path("lost");
        ZkClient observer = client();
        LostResponseClient flaky = new LostResponseClient(client());
        DistributedQueue<String> q = queue(flaky, p);
        flaky.loseCreates(1, x -> x.contains("/item-"));
        q.offer("once");
        assertEquals(1, flaky.lost());
        assertEquals(1, q.size(), "the lost offer was found, not repeated");
        q.offer("twice");
        flaky.loseMultis(1);
        assertEquals("once", q.take()); // the claim's response is lost: resolved through the consumer node
        assertEquals(2, flaky.lost());
        assertEquals("twice", queue(observer, p).take());
        assertEquals(0, q.size());
    }

    @Test
    void acknowledgedItemsOfDeadConsumersAreRedelivered() {
        String p = path("ack");
        ZkClient c1 = client();
        ZkClient c2 = client();
        AcknowledgedQueue<String> q1 = Recipes.using(c1).queue(p).serializer(STRINGS).buildAcknowledged();
        AcknowledgedQueue<String> q2 = Recipes.using(c2).queue(p).serializer(STRINGS).buildAcknowledged();
        q1.offer("a");
        q1.offer("b");
        q1.offer("c");
        QueueItem<String> a = q1.take();
        assertEquals("a", a.value());
        QueueItem<String> b = q2.take();
        assertEquals("b", b.value(), "a claimed item is skipped by others");
        b.release();
        QueueItem<String> b2 = q2.take();
        assertEquals("b", b2.value(), "a released item comes back");
        assertTrue(b2.ack());
        assertTrue(b2.ack(), "idempotent");
        c1.close(); // a's consumer dies before acknowledging
        QueueItem<String> first = q2.poll(WAIT).orElseThrow();
        QueueItem<String> second = q2.poll(WAIT).orElseThrow();
        Set<String> values = Set.of(first.value(), second.value());
        assertEquals(Set.of("a", "c"), values, "a is redelivered");
        assertTrue(first.ack());
        assertTrue(second.ack());
        assertTrue(q2.poll(Duration.ofMillis(200)).isEmpty());
        assertEquals(0, q2.size());
        q2.close();
        assertNoWatches(c2);
    }

    @Test
    void ackAfterSessionExpiryFailsAndTheItemComesBack() {
        String p = path("ack-expire");
        ZkClient c1 = client();
        AcknowledgedQueue<String> q1 = Recipes.using(c1).queue(p).serializer(STRINGS).buildAcknowledged();
        q1.offer("x");
        QueueItem<String> x = q1.take();
        long old = c1.sessionId();
        backend.expireSession(c1);
        eventually("new session", () -> c1.sessionId() != old && c1.state().isConnected());
        assertFalse(x.ack(), "the claim went with the session");
        AcknowledgedQueue<String> q2 = Recipes.using(client()).queue(p).serializer(STRINGS).buildAcknowledged();
        QueueItem<String> again = q2.poll(WAIT).orElseThrow();
        assertEquals("x", again.value());
        assertTrue(again.ack());
        q1.close();
        q2.close();
    }
}
