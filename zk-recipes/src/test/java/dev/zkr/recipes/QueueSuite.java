package dev.zkr.recipes;

import dev.zkr.client.CreateMode;
import dev.zkr.client.Parents;
import dev.zkr.client.ZkClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

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

    /** How many of the oldest items a take that lost a race picks from (the queue's SPREAD, as the README says). */
    private static final int SPREAD = 4;

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

    private AcknowledgedQueue<String> ackQueue(ZkClient c, String p) {
        return Recipes.using(c).queue(p).serializer(STRINGS).buildAcknowledged();
    }

    private volatile boolean serverDown;

    private void stopServer() {
        serverDown = true;
        backend.stopServer();
    }

    private void startServer() {
        if (serverDown) {
            backend.startServer();
            serverDown = false;
        }
    }

    /** A test that failed with the server down leaves it running for the next one. */
    @AfterEach
    void serverUp() {
        startServer();
    }

    private static long millisSince(long startNanos) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
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
        observer.create(p, new byte[0], CreateMode.PERSISTENT, Parents.CONTAINER); // the lost create is applied
        loseNextItemWrite(flaky);
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

    /**
     * A take that loses a race to another consumer's take (that one runs between this take's read of the head and
     * its claim) may get one of the oldest four; every later take that overlaps no other goes for the oldest item
     * again (the spread belongs to the racing take only, it is not carried over to the next takes).
     */
    @Test
    void takesThatOverlapNoOtherGetTheOldestItemAfterALostRace() {
        String p = path("race");
        LostResponseClient racer = new LostResponseClient(client());
        DistributedQueue<String> a = queue(racer, p);
        DistributedQueue<String> b = queue(client(), p);
        List<String> queued = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            a.offer("i" + i);
            queued.add("i" + i);
        }
        java.util.concurrent.atomic.AtomicReference<String> taken = new java.util.concurrent.atomic.AtomicReference<>();
        racer.beforeNextMulti(() -> taken.set(b.take()));
        String raced = a.take();
        assertEquals("i0", taken.get(), "the other consumer's take won the head");
        queued.remove("i0");
        assertTrue(queued.subList(0, SPREAD).contains(raced), "the racing take got one of the oldest four: "
                + raced);
        queued.remove(raced);
        a.offer("late");
        queued.add("late");
        while (!queued.isEmpty()) {
            assertEquals(queued.remove(0), a.take(), "a take that overlaps no other gets the oldest item");
        }
        assertEquals(Optional.empty(), b.poll(Duration.ofMillis(100)));
        a.close();
        b.close();
    }

    /**
     * Acknowledged queue: an item of an older listing found claimed by another consumer (whose take is over) is
     * skipped; it is no lost race, so the take goes on with the oldest unclaimed item, not one of the next four.
     */
    @Test
    void aClaimSeenOnlyByAnEarlierListingIsSkippedInOrder() {
        String p = path("ack-held");
        AcknowledgedQueue<String> a = ackQueue(client(), p);
        AcknowledgedQueue<String> b = ackQueue(client(), p);
        for (int i = 0; i < 10; i++) {
            a.offer("i" + i);
        }
        QueueItem<String> first = a.take(); // lists i0..i9 and keeps i1..i9 cached
        assertEquals("i0", first.value());
        QueueItem<String> held = b.take();
        assertEquals("i1", held.value(), "claimed items are skipped by others");
        for (int i = 2; i < 10; i++) {
            QueueItem<String> next = a.take();
            assertEquals("i" + i, next.value(), "the oldest unclaimed item");
            assertTrue(next.ack());
        }
        assertTrue(first.ack());
        assertTrue(held.ack());
        eventually("empty once a's server applied b's ack (an ensemble's servers may lag)", () -> a.size() == 0);
        a.close();
        b.close();
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
    void ackWhoseFirstAttemptIsAppliedOnlyAfterTheConsumerLookedIsStillAnAck() {
        // found by zk-chaos (queue, seed 22): the ack's multi was applied, its response lost, the look-up for the
        // claim ran before the multi showed, the retried multi got NoNode, and ack() said false for an item it had
        // deleted: nobody else would ever take it
        String p = path("ack-late");
        LostResponseClient flaky = new LostResponseClient(client());
        AcknowledgedQueue<String> q = Recipes.using(flaky).queue(p).serializer(STRINGS).buildAcknowledged();
        q.offer("x");
        QueueItem<String> x = q.take();
        flaky.delayNextMultiPastTheNextExists();
        assertTrue(x.ack(), "the item was removed by this ack");
        assertEquals(0, q.size());
        assertTrue(q.poll(Duration.ofMillis(200)).isEmpty(), "and it is not delivered again");
        q.close();
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

    // ---- failure behaviour: disconnection, closed clients, lost claim responses ---------------------------------

    /** One consumer's client with a plain queue and an acknowledged queue, and an item it claimed from the latter. */
    private record Consumers(ZkClient client, DistributedQueue<String> queue, AcknowledgedQueue<String> ackQueue,
                             QueueItem<String> claimed) {
    }

    /**
     * A new client with a plain queue at {@code p} (one item offered and taken: the queue and the consumer node
     * exist) and an acknowledged queue at {@code p-ack} from which it has claimed the item "b".
     */
    private Consumers consumersWithAClaim(String p) {
        ZkClient c = client();
        DistributedQueue<String> q = queue(c, p);
        AcknowledgedQueue<String> aq = ackQueue(c, p + "-ack");
        q.offer("a");
        assertEquals("a", q.take());
        aq.offer("b");
        return new Consumers(c, q, aq, aq.take());
    }

    /** Timed polls return empty when their timeout runs out while disconnected (no ConnectionLoss, no overrun). */
    @Test
    @Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void timedPollsThatRunOutWhileDisconnectedAreEmpty() throws Exception {
        String p = path("offline");
        ZkClient c = client();
        DistributedQueue<String> q = queue(c, p);
        AcknowledgedQueue<String> aq = ackQueue(c, p + "-ack");
        q.offer("warm");
        assertEquals("warm", q.take()); // the queue and the consumer node exist
        Future<Optional<String>> waiting = pool.submit(() -> q.poll(Duration.ofSeconds(2)));
        eventually("the poll waits on the queue", () -> !c.watchedPaths().isEmpty());
        stopServer();
        try {
            eventually("disconnected", () -> !c.state().isConnected());
            assertEquals(Optional.empty(), waiting.get(20, TimeUnit.SECONDS), "the wait ran out while disconnected");
            long start = System.nanoTime();
            assertEquals(Optional.empty(), q.poll(Duration.ofMillis(300)));
            assertTrue(aq.poll(Duration.ofMillis(300)).isEmpty());
            // the native client keeps a request for its 30 s request timeout while disconnected
            assertTrue(millisSince(start) < 5_000, "timed polls end near their timeout: " + millisSince(start) + " ms");
        } finally {
            startServer();
        }
        eventually("reconnected", () -> c.state().isConnected());
        q.offer("after");
        assertEquals("after", q.poll(WAIT).orElseThrow());
        aq.offer("ack-after");
        QueueItem<String> item = aq.poll(WAIT).orElseThrow();
        assertTrue(item.ack());
        q.close();
        aq.close();
        assertNoWatches(c);
    }

    /** Queues and their items are closed promptly after their client was closed (no wait for a connection). */
    @Test
    @Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void closingAfterTheClientClosedIsPrompt() {
        String p = path("closed-client");
        Consumers consumers = consumersWithAClaim(p);
        ZkClient c = consumers.client();
        DistributedQueue<String> q = consumers.queue();
        AcknowledgedQueue<String> aq = consumers.ackQueue();
        QueueItem<String> b = consumers.claimed();
        aq.offer("c");
        QueueItem<String> c2 = aq.take();
        c.close();
        long start = System.nanoTime();
        b.release();
        assertFalse(c2.ack(), "the claim went with the closed client");
        aq.close();
        q.close();
        assertTrue(millisSince(start) < 2_000, "closed in " + millisSince(start) + " ms");
        assertThrows(IllegalStateException.class, () -> q.poll(Duration.ofMillis(100)));
    }

    /** A take that waits for the connection ends when the client is closed, and the queue then closes promptly. */
    @Test
    @Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void takesWaitingForTheConnectionEndWhenTheClientCloses() throws Exception {
        String p = path("closing-client");
        Consumers consumers = consumersWithAClaim(p);
        ZkClient c = consumers.client();
        DistributedQueue<String> q = consumers.queue();
        AcknowledgedQueue<String> aq = consumers.ackQueue();
        QueueItem<String> b = consumers.claimed();
        stopServer();
        try {
            eventually("disconnected", () -> !c.state().isConnected());
            Future<String> taking = pool.submit(q::take);
            Future<QueueItem<String>> ackTaking = pool.submit(aq::take);
            Future<Boolean> acking = pool.submit(b::ack);
            c.close();
            long start = System.nanoTime();
            for (Future<?> f : List.of(taking, ackTaking, acking)) {
                try {
                    Object result = f.get(10, TimeUnit.SECONDS);
                    assertEquals(Boolean.FALSE, result, "only the ack may end without an exception");
                } catch (java.util.concurrent.ExecutionException e) {
                    assertTrue(e.getCause() instanceof dev.zkr.client.ZkException.Closed
                            || e.getCause() instanceof IllegalStateException, e.toString());
                }
            }
            q.close();
            aq.close();
            assertTrue(millisSince(start) < 2_000, "ended and closed in " + millisSince(start) + " ms");
        } finally {
            startServer();
        }
    }

    /** A queue closed while its client is disconnected unblocks its takes and returns promptly. */
    @Test
    @Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void closingWhileDisconnectedIsPrompt() throws Exception {
        String p = path("close-offline");
        Consumers consumers = consumersWithAClaim(p);
        ZkClient c = consumers.client();
        DistributedQueue<String> q = consumers.queue();
        AcknowledgedQueue<String> aq = consumers.ackQueue();
        QueueItem<String> b = consumers.claimed();
        stopServer();
        try {
            eventually("disconnected", () -> !c.state().isConnected());
            Future<String> taking = pool.submit(q::take);
            long start = System.nanoTime();
            b.release();
            q.close();
            aq.close();
            java.util.concurrent.ExecutionException e = assertThrows(java.util.concurrent.ExecutionException.class,
                    () -> taking.get(10, TimeUnit.SECONDS));
            assertTrue(e.getCause() instanceof IllegalStateException, e.toString());
            assertTrue(millisSince(start) < 2_000, "closed in " + millisSince(start) + " ms");
        } finally {
            startServer();
        }
        eventually("reconnected", () -> c.state().isConnected());
        // the release and the consumer node's delete went on in the background once the connection was back
        eventually("the claim is released", () -> children(c, p + "-ack").stream().noneMatch(n -> n.startsWith("claim-")));
        eventually("no consumer node left", () -> children(c, p).stream().noneMatch(n -> n.startsWith("consumer-")));
        assertNoWatches(c);
    }

    /**
     * Polls {@code q} once while its claim create is applied but its response lost and the server stopped (the poll
     * ends empty), then starts the server again. Returns the consumer's session.
     */
    private long pollLosingTheClaimAcrossAStop(LostResponseClient flaky, AcknowledgedQueue<String> q) {
        long session = flaky.sessionId();
        flaky.onLoss(this::stopServer).loseCreates(1, x -> x.contains("/claim-"));
        try {
            assertTrue(q.poll(Duration.ofMillis(500)).isEmpty(), "the claim's response and connection are gone");
        } finally {
            eventually("the response was lost (and the server stopped)", () -> flaky.lost() == 1);
            startServer();
        }
        return session;
    }

    /**
     * A claim whose create was applied but whose response was lost with the connection, past the poll's timeout:
     * once the connection is back the consumer finds its own claim and delivers the item.
     */
    @Test
    @Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aLostClaimIsDeliveredByItsConsumerAfterReconnecting() {
        String p = path("lost-claim");
        LostResponseClient flaky = new LostResponseClient(client());
        AcknowledgedQueue<String> q = ackQueue(flaky, p);
        q.offer("x");
        long session = pollLosingTheClaimAcrossAStop(flaky, q);
        assertEquals(1, flaky.lost());
        QueueItem<String> x = q.poll(WAIT).orElseThrow();
        assertEquals("x", x.value());
        assertEquals(session, flaky.sessionId(), "the same session: not redelivered by expiry");
        assertTrue(x.ack());
        assertEquals(0, q.size());
        q.close();
        assertNoWatches(flaky);
    }

    /**
     * As above, but the consumer takes nothing more: its lost claim is released once the connection is back, so
     * another consumer gets the item while the first session lives.
     */
    @Test
    @Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aLostClaimOfAnIdleConsumerIsReleasedForOthers() {
        String p = path("lost-claim-idle");
        LostResponseClient flaky = new LostResponseClient(client());
        AcknowledgedQueue<String> q1 = ackQueue(flaky, p);
        q1.offer("x");
        long session = pollLosingTheClaimAcrossAStop(flaky, q1);
        AcknowledgedQueue<String> q2 = ackQueue(client(), p);
        QueueItem<String> x = q2.poll(WAIT).orElseThrow();
        assertEquals("x", x.value());
        assertEquals(session, flaky.sessionId(), "the first consumer's session lives: released, not expired");
        assertTrue(flaky.state().isConnected());
        assertTrue(x.ack());
        q1.close();
        q2.close();
    }

    /** A claim whose response was lost while connected is found by its consumer at once (same take). */
    @Test
    @Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aClaimWhoseResponseWasLostIsFoundInTheSameTake() {
        String p = path("lost-claim-online");
        LostResponseClient flaky = new LostResponseClient(client());
        AcknowledgedQueue<String> q = ackQueue(flaky, p);
        q.offer("x");
        flaky.loseCreates(1, x -> x.contains("/claim-"));
        QueueItem<String> x = q.poll(WAIT).orElseThrow();
        assertEquals(1, flaky.lost());
        assertEquals("x", x.value());
        assertTrue(x.ack());
        assertEquals(0, q.size());
        q.close();
    }

    /**
     * The plain queue's claim response is lost with the connection: the claim is decided by the consumer node once
     * the connection is back, before the poll returns (even past its timeout: the documented relaxation, at most
     * twice the session timeout), so the item is neither lost nor delivered twice.
     */
    @Test
    @Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aLostClaimOfThePlainQueueIsDecidedOnceReconnected() throws Exception {
        String p = path("lost-take");
        ZkClient observer = client();
        LostResponseClient flaky = new LostResponseClient(client());
        DistributedQueue<String> q = queue(flaky, p);
        q.offer("x");
        q.offer("y");
        flaky.onLoss(this::stopServer).loseMultis(1);
        Future<?> restart = pool.submit(() -> {
            eventually("the response was lost (and the server stopped)", () -> flaky.lost() == 1);
            startServer();
            return null;
        });
        assertEquals(Optional.of("x"), q.poll(Duration.ofMillis(500)));
        restart.get(30, TimeUnit.SECONDS);
        assertEquals(1, flaky.lost());
        assertEquals("y", queue(observer, p).take());
        assertEquals(0, q.size());
        q.close();
    }

    /**
     * An offer takes the path its client's write guarantee allows: with exactly-once writes (zkr's client) a plain
     * create of the item, no ledger; without (Apache ZooKeeper) the item and the producer's ledger in one multi.
     */
    @Test
    void anOfferIsAPlainCreateOnlyWithExactlyOnceWrites() {
        String p = path("offer-path");
        ZkClient observer = client();
        observer.create(p, null, CreateMode.PERSISTENT, Parents.PERSISTENT);
        ZkClient producer = client();
        CountingClient counting = new CountingClient(producer);
        assertEquals(producer.exactlyOnceWrites(), counting.exactlyOnceWrites(), "counting forwards the guarantee");
        DistributedQueue<String> q = queue(counting, p);
        for (int i = 0; i < 3; i++) {
            q.offer("item-" + i);
        }
        assertEquals(3, items(observer, p).size());
        if (counting.exactlyOnceWrites()) {
            assertEquals(3, counting.count(CountingClient.Kind.CREATE), counting.snapshot().toString());
            assertEquals(0, counting.count(CountingClient.Kind.MULTI, CountingClient.Kind.SET_DATA,
                    CountingClient.Kind.SYNC, CountingClient.Kind.GET_CHILDREN), counting.snapshot().toString());
            assertEquals(null, observer.exists(p + "-offers"), "no ledger");
        } else {
            assertEquals(3, counting.count(CountingClient.Kind.MULTI), counting.snapshot().toString());
            assertEquals(1, observer.getChildren(p + "-offers").size(), "the producer's ledger");
        }
        q.close();
    }

    // ---- exactly-once offers (zk-chaos queue finding) -----------------------------------------------------------

    /** Items in the queue node (after a sync), by name. */
    private static List<String> items(ZkClient c, String p) {
        return children(c, p).stream().filter(n -> n.startsWith("item-")).toList();
    }

    /** Loses the response of the next write of an item (a create before the fix, the offer's multi after it). */
    private static void loseNextItemWrite(LostResponseClient c) {
        c.loseCreates(1, x -> x.contains("/item-"));
        c.loseMultis(1, ops -> ops.stream().anyMatch(o -> o.path().contains("/item-")));
    }

    /**
     * The offer is applied, its response is lost, and a consumer takes and acknowledges the item before the
     * producer looks: the item is not in the queue any more, yet the offer must not be applied again.
     */
    @Test
    @Timeout(60)
    void aLostOfferConsumedBeforeTheProducerLooksIsNotAppliedAgain() {
        String p = path("lost-consumed");
        ZkClient observer = client();
        LostResponseClient flaky = new LostResponseClient(client());
        AcknowledgedQueue<String> producer = ackQueue(flaky, p);
        AcknowledgedQueue<String> consumer = ackQueue(client(), p);
        producer.offer("before"); // the producer's ledger exists: the lost offer updates it
        QueueItem<String> before = consumer.take();
        assertTrue(before.ack());
        List<String> delivered = Collections.synchronizedList(new ArrayList<>());
        loseNextItemWrite(flaky);
        flaky.onLoss(() -> consumer.poll(WAIT).ifPresent(
                it -> delivered.add(it.value() + (it.ack() ? "" : " (ack failed)"))));
        producer.offer("once");
        assertEquals(1, flaky.lost());
        assertEquals(List.of("once"), delivered);
        assertEquals(List.of(), items(observer, p), "the consumed offer was not applied again");
        assertEquals(Optional.empty(), consumer.poll(Duration.ofMillis(100)));
        producer.close();
        consumer.close();
    }

    /** As above with the simple queue (the same offer), for its first offer (the ledger is made by the lost one). */
    @Test
    @Timeout(60)
    void aLostFirstOfferConsumedBeforeTheProducerLooksIsNotAppliedAgain() {
        String p = path("lost-consumed-simple");
        ZkClient observer = client();
        LostResponseClient flaky = new LostResponseClient(client());
        DistributedQueue<String> producer = queue(flaky, p);
        DistributedQueue<String> consumer = queue(client(), p);
        observer.create(p, new byte[0], CreateMode.PERSISTENT, Parents.CONTAINER); // the lost write is applied
        List<String> delivered = Collections.synchronizedList(new ArrayList<>());
        loseNextItemWrite(flaky);
        flaky.onLoss(() -> consumer.poll(WAIT).ifPresent(delivered::add));
        producer.offer("once");
        assertEquals(1, flaky.lost());
        assertEquals(List.of("once"), delivered);
        assertEquals(List.of(), items(observer, p), "the consumed offer was not applied again");
        producer.close();
        consumer.close();
    }

    /**
     * The offer's request is still on its way when the producer looks (as through a stopped follower, or a look-up
     * on a server that does not show it yet), and is applied after the producer went on: one item all the same.
     */
    @Test
    @Timeout(60)
    void aLostOfferAppliedAfterTheProducerLookedIsNotDuplicated() throws Exception {
        String p = path("lost-late");
        ZkClient observer = client();
        LostResponseClient flaky = new LostResponseClient(client());
        DistributedQueue<String> producer = queue(flaky, p);
        producer.offer("first");
        flaky.delayNextWrite(x -> x.contains("/item-"));
        producer.offer("second");
        assertEquals(1, flaky.lost());
        flaky.heldBackDone().get(20, TimeUnit.SECONDS); // the late request was answered: applied or refused
        assertEquals(2, items(observer, p).size(), "one node per offer: " + items(observer, p));
        DistributedQueue<String> consumer = queue(observer, p);
        assertEquals("first", consumer.take());
        assertEquals("second", consumer.take());
        assertEquals(Optional.empty(), consumer.poll(Duration.ofMillis(100)));
        producer.close();
        consumer.close();
    }

    /**
     * The offer is applied, its response lost, the item consumed, and the producer's session expires before it
     * looks: its ledger went with the session and the item is gone, so the outcome is unknown. The offer fails
     * with ConnectionLoss ("may or may not be queued") and does not offer again.
     */
    @Test
    @Timeout(60)
    void aLostOfferWhoseOutcomeCannotBeKnownFailsWithoutOfferingAgain() {
        String p = path("lost-unknown");
        ZkClient observer = client();
        ZkClient base = client();
        LostResponseClient flaky = new LostResponseClient(base);
        AcknowledgedQueue<String> producer = ackQueue(flaky, p);
        AcknowledgedQueue<String> consumer = ackQueue(client(), p);
        producer.offer("before");
        assertTrue(consumer.take().ack());
        List<String> delivered = Collections.synchronizedList(new ArrayList<>());
        long session = base.sessionId();
        loseNextItemWrite(flaky);
        flaky.onLoss(() -> {
            consumer.poll(WAIT).ifPresent(it -> delivered.add(it.value() + (it.ack() ? "" : " (ack failed)")));
            backend.expireSession(base);
        });
        dev.zkr.client.ZkException.ConnectionLoss e =
                assertThrows(dev.zkr.client.ZkException.ConnectionLoss.class, () -> producer.offer("once"));
        assertTrue(e.getMessage().contains("may or may not be queued"), e.getMessage());
        assertTrue(base.sessionId() != session, "a new session");
        assertEquals(List.of("once"), delivered);
        assertEquals(List.of(), items(observer, p), "not offered again");
        producer.offer("after"); // the producer goes on in its new session
        assertEquals("after", consumer.take().value());
        producer.close();
        consumer.close();
    }

    /** As above, but the item is still queued when the producer looks: found, so the offer returns normally. */
    @Test
    @Timeout(60)
    void aLostOfferFoundAfterSessionExpiryReturnsNormally() {
        String p = path("lost-expired-found");
        ZkClient observer = client();
        ZkClient base = client();
        LostResponseClient flaky = new LostResponseClient(base);
        DistributedQueue<String> producer = queue(flaky, p);
        producer.offer("before");
        loseNextItemWrite(flaky);
        flaky.onLoss(() -> backend.expireSession(base));
        producer.offer("once");
        assertEquals(1, flaky.lost());
        assertEquals(2, items(observer, p).size());
        DistributedQueue<String> consumer = queue(observer, p);
        assertEquals("before", consumer.take());
        assertEquals("once", consumer.take());
        producer.close();
        consumer.close();
    }
}
