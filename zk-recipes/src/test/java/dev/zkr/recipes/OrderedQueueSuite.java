package dev.zkr.recipes;

import dev.zkr.client.CreateMode;
import dev.zkr.client.Parents;
import dev.zkr.client.ZkClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static dev.zkr.recipes.QueueSuite.STRINGS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Ordered queues (priority, delay, id) and asynchronous takes of every queue: order, due times on the server's
 * clock, removal by id, acknowledged redelivery, cancel and close of async takes, and Curator's known bugs of its
 * counterparts ({@code DistributedPriorityQueue}, {@code DistributedDelayQueue}, {@code DistributedIdQueue}).
 */
@Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
public abstract class OrderedQueueSuite extends RecipeSuite {

    private volatile boolean serverDown;

    @AfterEach
    void serverUp() {
        if (serverDown) {
            backend.startServer();
            serverDown = false;
        }
    }

    private static QueueBuilder<String> strings(ZkClient c, String p) {
        return Recipes.using(c).queue(p).serializer(STRINGS);
    }

    /** The server's time now: the mtime of a write (the clock every due time counts on). */
    private static long serverTime(ZkClient c, String p) {
        String clock = p + "-testclock";
        try {
            return c.setData(clock, new byte[0], -1).mtime();
        } catch (dev.zkr.client.ZkException.NoNode e) {
            return c.createWithStat(clock, new byte[0], CreateMode.PERSISTENT, Parents.CONTAINER).stat().mtime();
        }
    }

    private static <T> List<T> takeAll(DistributedQueue<T> q, int n) {
        List<T> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(q.take());
        }
        return out;
    }

    // ---- priority ---------------------------------------------------------------------------------------------

    @Test
    void priorityTakesTheLowestNumberFirstAndFifoAmongEquals() {
        ZkClient c = client();
        DistributedPriorityQueue<String> q = strings(c, path("prio")).priority().build();
        q.offer("c", 5);
        q.offer("a", 1);
        q.offer("zero"); // priority 0
        q.offer("d", 5);
        q.offer("b", 1);
        q.offer("min", Integer.MIN_VALUE);
        q.offer("max", Integer.MAX_VALUE);
        q.offer("neg", -3);
        assertEquals(8, q.size());
        assertEquals(List.of("min", "neg", "zero", "a", "b", "c", "d", "max"), takeAll(q, 8));
        assertEquals(Optional.empty(), q.poll(Duration.ofMillis(100)));
        q.close();
        assertNoWatches(c);
    }

    /** Each take lists the queue: an urgent item offered after an earlier take filled its cache comes first. */
    @Test
    void priorityTakeSeesAnItemOfferedSinceTheLastTake() {
        DistributedPriorityQueue<String> q = strings(client(), path("prio-late")).priority().build();
        for (int i = 0; i < 4; i++) {
            q.offer("low" + i, 10);
        }
        assertEquals("low0", q.take());
        q.offer("urgent", -1);
        assertEquals("urgent", q.take());
        assertEquals("low1", q.take());
        q.close();
    }

    @Test
    void acknowledgedPriorityQueueRedeliversInPriorityOrder() {
        String p = path("prio-ack");
        ZkClient c1 = client();
        AcknowledgedPriorityQueue<String> q1 = strings(c1, p).priority().buildAcknowledged();
        AcknowledgedPriorityQueue<String> q2 = strings(client(), p).priority().buildAcknowledged();
        q1.offer("later", 2);
        q1.offer("first", 1);
        QueueItem<String> held = q1.take();
        assertEquals("first", held.value());
        assertEquals("later", q2.take().value()); // unclaimed items only
        held.release();
        QueueItem<String> again = q2.take();
        assertEquals("first", again.value());
        assertTrue(again.ack());
        assertEquals(1, q1.size()); // "later", claimed by q2, not acked
        q1.close();
        q2.close(); // releases "later"
        AcknowledgedPriorityQueue<String> q3 = strings(client(), p).priority().buildAcknowledged();
        assertEquals("later", q3.take().value());
        q3.close();
    }

    /** CURATOR-56: a re-queued item's node name grew on every re-queue. Here a released item keeps its node. */
    @Test
    void curator56_aReleasedItemKeepsItsNode() {
        String p = path("c56");
        ZkClient c = client();
        AcknowledgedPriorityQueue<String> q = strings(c, p).priority().buildAcknowledged();
        q.offer("x", 3);
        QueueItem<String> first = q.take();
        String id = first.id();
        for (int i = 0; i < 5; i++) {
            first.release();
            first = q.take();
            assertEquals(id, first.id());
        }
        assertEquals(List.of(id), children(c, p).stream().filter(n -> n.startsWith("item-")).toList());
        assertTrue(first.ack());
        q.close();
    }

    /**
     * CURATOR-605: a consumer whose session died could still complete its message after another consumer got it.
     * Here the expired consumer's ack fails and the item goes to exactly one other consumer.
     */
    @Test
    void curator605_theAckOfAConsumerWhoseSessionExpiredFails() {
        String p = path("c605");
        ZkClient c1 = client();
        AcknowledgedPriorityQueue<String> q1 = strings(c1, p).priority().buildAcknowledged();
        AcknowledgedPriorityQueue<String> q2 = strings(client(), p).priority().buildAcknowledged();
        q1.offer("job", 1);
        QueueItem<String> lost = q1.take();
        backend.expireSession(c1);
        QueueItem<String> got = q2.poll(WAIT).orElseThrow();
        assertEquals("job", got.value());
        assertFalse(lost.ack());
        assertTrue(got.ack());
        assertEquals(0, q2.size());
        q1.close();
        q2.close();
    }

    // ---- delay ------------------------------------------------------------------------------------------------

    @Test
    void aDelayedItemIsNotTakenBeforeItsTimeOnTheServersClock() {
        String p = path("delay");
        ZkClient c = client();
        DistributedDelayQueue<String> q = strings(c, p).delay().build();
        long before = serverTime(c, p);
        q.offer("later", Duration.ofMillis(1500)); // long enough that a loaded machine cannot get past it early
        q.offer("now");
        assertEquals("now", q.take()); // due at once, though offered after
        assertEquals(Optional.empty(), q.poll(Duration.ofMillis(100)));
        assertEquals("later", q.take());
        long after = serverTime(c, p);
        assertTrue(after - before >= 1500, "taken " + (after - before) + " ms after the offer on the server's clock");
        q.close();
        assertNoWatches(c);
    }

    /**
     * CURATOR-116 (and CURATOR-115): the delay queue sorted with the clock read during the sort, so the order of
     * due items was inconsistent. Here due items are taken earliest due first, FIFO among equal due times.
     */
    @Test
    void curator116_dueItemsAreTakenEarliestDueFirst() {
        DistributedDelayQueue<String> q = strings(client(), path("c116")).delay().build();
        q.offer("a", Duration.ofMillis(600));
        q.offer("b", Duration.ofMillis(300));
        q.offer("c");
        q.offer("d", Duration.ofMillis(300));
        // d is due no earlier than b (offered later, the same delay; server time never goes back), and if at the
        // same millisecond it is behind b in arrival order
        assertEquals(List.of("c", "b", "d", "a"), takeAll(q, 4));
        q.close();
    }

    /** A take waiting for an item due later takes an item due at once offered meanwhile, without waiting. */
    @Test
    void aTakeWaitingForALaterItemTakesOneDueNow() throws Exception {
        DistributedDelayQueue<String> q = strings(client(), path("delay-wait")).delay().build();
        DistributedDelayQueue<String> producer = strings(client(), path("delay-wait")).delay().build();
        producer.offer("in-a-minute", Duration.ofMinutes(1));
        Future<String> taking = pool.submit(q::take);
        producer.offer("now");
        assertEquals("now", taking.get(10, TimeUnit.SECONDS));
        assertEquals(Optional.empty(), q.poll(Duration.ofMillis(100)));
        q.close();
        producer.close();
    }

    @Test
    void acknowledgedDelayQueueClaimsOnlyDueItemsAndRedeliversAtOnce() {
        String p = path("delay-ack");
        ZkClient c = client();
        AcknowledgedDelayQueue<String> q = strings(c, p).delay().buildAcknowledged();
        long before = serverTime(c, p);
        q.offer("x", Duration.ofMillis(1000));
        assertEquals(Optional.empty(), q.poll(Duration.ofMillis(100)));
        QueueItem<String> item = q.take();
        assertTrue(serverTime(c, p) - before >= 1000);
        item.release();
        QueueItem<String> again = q.poll(Duration.ofSeconds(5)).orElseThrow(); // still due
        assertEquals("x", again.value());
        assertTrue(again.ack());
        q.close();
    }

    @Test
    void negativeDelaysAndBadIdsAreRejected() {
        DistributedDelayQueue<String> d = strings(client(), path("bad")).delay().build();
        assertThrows(IllegalArgumentException.class, () -> d.offer("x", Duration.ofMillis(-1)));
        assertThrows(NullPointerException.class, () -> d.offer("x", (Duration) null));
        DistributedIdQueue<String> q = strings(client(), path("bad-ids")).ids().build();
        assertThrows(IllegalArgumentException.class, () -> q.offer(null, "x"));
        assertThrows(IllegalArgumentException.class, () -> q.offer("", "x"));
        assertThrows(IllegalArgumentException.class, () -> q.offer("x".repeat(257), "x"));
        assertThrows(IllegalArgumentException.class, () -> q.remove(""));
        assertEquals(0, q.size());
        d.close();
        q.close();
    }

    // ---- ids --------------------------------------------------------------------------------------------------

    @Test
    void idQueueRemovesQueuedItemsById() {
        ZkClient c = client();
        DistributedIdQueue<String> q = strings(c, path("ids")).ids().build();
        q.offer("a", "x1");
        q.offer("b/with slash", "x2");
        q.offer("a", "x3");
        q.offer("x4"); // no id
        assertEquals(2, q.remove("a"));
        assertEquals(0, q.remove("a"));
        assertEquals(0, q.remove("missing"));
        assertEquals(List.of("x2", "x4"), takeAll(q, 2));
        q.offer("b/with slash", "x5");
        assertEquals(1, q.remove("b/with slash"));
        assertEquals(0, q.size());
        q.close();
        assertNoWatches(c);
    }

    /**
     * CURATOR-224: a re-queued item of the id queue lost its id. Here an item released by its consumer keeps its
     * id; and an item a consumer holds is not removed from under it.
     */
    @Test
    void curator224_aReleasedItemKeepsItsIdAndAHeldItemIsNotRemoved() {
        String p = path("c224");
        AcknowledgedIdQueue<String> q = strings(client(), p).ids().buildAcknowledged();
        AcknowledgedIdQueue<String> other = strings(client(), p).ids().buildAcknowledged();
        q.offer("job-1", "payload");
        QueueItem<String> held = q.take();
        assertEquals(0, other.remove("job-1")); // held: not removed
        held.release();
        assertEquals(1, other.remove("job-1"));
        assertEquals(0, q.size());
        assertEquals(Optional.empty(), q.poll(Duration.ofMillis(100)));
        assertFalse(held.ack());
        q.close();
        other.close();
    }

    /** A remove that lists the item unclaimed and is sent after a consumer claimed it leaves it to the consumer. */
    @Test
    void aRemoveThatLosesARaceToAClaimLeavesTheItemToItsConsumer() {
        String p = path("ids-race-ack");
        AcknowledgedIdQueue<String> consumer = strings(client(), p).ids().buildAcknowledged();
        LostResponseClient racer = new LostResponseClient(client());
        AcknowledgedIdQueue<String> remover = strings(racer, p).ids().buildAcknowledged();
        remover.offer("k", "v");
        List<QueueItem<String>> held = new ArrayList<>();
        racer.beforeNextMulti(() -> held.add(consumer.take())); // between the remover's listing and its request
        assertEquals(0, remover.remove("k"));
        assertEquals("v", held.get(0).value());
        assertTrue(held.get(0).ack());
        consumer.close();
        remover.close();

        String ps = path("ids-race");
        DistributedIdQueue<String> taker = strings(client(), ps).ids().build();
        LostResponseClient racer2 = new LostResponseClient(client());
        DistributedIdQueue<String> remover2 = strings(racer2, ps).ids().build();
        remover2.offer("k", "v");
        List<String> taken = new ArrayList<>();
        racer2.beforeNextMulti(() -> taken.add(taker.take()));
        assertEquals(0, remover2.remove("k"));
        assertEquals(List.of("v"), taken);
        taker.close();
        remover2.close();
    }

    // ---- takeAsync ----------------------------------------------------------------------------------------------

    /** A waiting async take holds no thread: the recipes' single executor thread stays free for other work. */
    @Test
    void takeAsyncHoldsNoThreadWhileItWaits() throws Exception {
        ExecutorService one = Executors.newSingleThreadExecutor();
        try {
            ZkClient c = client();
            DistributedQueue<String> q = Recipes.using(c, one).queue(path("async")).serializer(STRINGS).build();
            CompletableFuture<String> f1 = q.takeAsync();
            CompletableFuture<String> f2 = q.takeAsync();
            assertEquals("free", one.submit(() -> "free").get(10, TimeUnit.SECONDS));
            assertFalse(f1.isDone() || f2.isDone());
            DistributedQueue<String> producer = strings(client(), path("async")).build();
            producer.offer("x");
            producer.offer("y");
            List<String> got = new ArrayList<>(List.of(f1.get(10, TimeUnit.SECONDS), f2.get(10, TimeUnit.SECONDS)));
            got.sort(null);
            assertEquals(List.of("x", "y"), got);
            q.close();
            producer.close();
            assertNoWatches(c);
        } finally {
            one.shutdownNow();
        }
    }

    @Test
    void aCancelledTakeAsyncLeavesNoWatchAndTakesNothing() {
        String p = path("async-cancel");
        ZkClient c = client();
        AcknowledgedQueue<String> q = strings(c, p).buildAcknowledged();
        CompletableFuture<QueueItem<String>> f = q.takeAsync();
        eventually("the async take watches", () -> !c.watchedPaths().isEmpty());
        assertTrue(f.cancel(false));
        assertNoWatches(c);
        q.offer("x");
        QueueItem<String> item = q.poll(Duration.ofSeconds(10)).orElseThrow();
        assertEquals("x", item.value());
        assertTrue(item.ack());
        q.close();
    }

    /** (The acknowledged queue has no consumer node whose delete at close would wake the take's child watch.) */
    @Test
    void closeFailsAPendingTakeAsync() {
        ZkClient c = client();
        AcknowledgedPriorityQueue<String> q = strings(c, path("async-close")).priority().buildAcknowledged();
        CompletableFuture<QueueItem<String>> f = q.takeAsync();
        eventually("the async take watches", () -> !c.watchedPaths().isEmpty());
        q.close();
        ExecutionException e = assertThrows(ExecutionException.class, () -> f.get(10, TimeUnit.SECONDS));
        assertInstanceOf(IllegalStateException.class, e.getCause());
        assertThrows(IllegalStateException.class, q::takeAsync);
        assertNoWatches(c);
    }

    /** An async take waits behind a blocking take of the same consumer, and goes on when that one ends. */
    @Test
    void takeAsyncWaitsForABlockingTakeOfTheSameConsumer() throws Exception {
        String p = path("async-busy");
        DistributedQueue<String> q = strings(client(), p).build();
        Future<String> blocking = pool.submit(q::take);
        CompletableFuture<String> async = q.takeAsync();
        DistributedQueue<String> producer = strings(client(), p).build();
        producer.offer("one");
        String first = blocking.get(10, TimeUnit.SECONDS);
        producer.offer("two");
        String second = async.get(10, TimeUnit.SECONDS);
        assertEquals(List.of("one", "two"), List.of(first, second));
        q.close();
        producer.close();
    }

    /** The async take of a delay queue wakes on its timer when the earliest item falls due (no new event). */
    @Test
    void takeAsyncOfADelayQueueWakesWhenTheItemIsDue() throws Exception {
        String p = path("async-delay");
        ZkClient c = client();
        DistributedDelayQueue<String> q = strings(c, p).delay().build();
        long before = serverTime(c, p);
        q.offer("x", Duration.ofMillis(600));
        CompletableFuture<String> f = q.takeAsync();
        assertEquals("x", f.get(10, TimeUnit.SECONDS));
        assertTrue(serverTime(c, p) - before >= 600);
        q.close();
        assertNoWatches(c);
    }

    @Test
    void takeAsyncOfPriorityAndIdQueuesKeepsTheirOrder() throws Exception {
        String p = path("async-prio");
        DistributedPriorityQueue<String> q = strings(client(), p).priority().build();
        q.offer("b", 2);
        q.offer("a", 1);
        assertEquals("a", q.takeAsync().get(10, TimeUnit.SECONDS));
        assertEquals("b", q.takeAsync().get(10, TimeUnit.SECONDS));
        q.close();
        AcknowledgedIdQueue<String> ids = strings(client(), path("async-ids")).ids().buildAcknowledged();
        ids.offer("k", "v");
        QueueItem<String> item = ids.takeAsync().get(10, TimeUnit.SECONDS);
        assertEquals("v", item.value());
        assertTrue(item.ack());
        ids.close();
    }

    /**
     * CURATOR-623: a queue stopped filling after a long disconnect (its watches gave up). Here an async take
     * pending across a server stop and start still gets an item offered afterwards.
     */
    @Test
    void curator623_takeAsyncGoesOnAfterTheServerWasDown() throws Exception {
        String p = path("c623");
        ZkClient c = client();
        DistributedQueue<String> q = strings(c, p).build();
        CompletableFuture<String> f = q.takeAsync();
        eventually("the async take watches", () -> !c.watchedPaths().isEmpty());
        serverDown = true;
        backend.stopServer();
        backend.startServer();
        serverDown = false;
        DistributedQueue<String> producer = strings(client(), p).build();
        producer.offer("after");
        assertEquals("after", f.get(WAIT.toSeconds(), TimeUnit.SECONDS));
        q.close();
        producer.close();
    }

    /** A serializer that cancels the async take whose item it is reading: the claim is made, the hand-over fails. */
    private static final class CancellingReader implements QueueSerializer<String> {
        volatile CompletableFuture<?> toCancel;

        @Override
        public byte[] serialize(String item) {
            return STRINGS.serialize(item);
        }

        @Override
        public String deserialize(byte[] data) {
            CompletableFuture<?> f = toCancel;
            if (f != null) {
                toCancel = null;
                f.cancel(false);
            }
            return STRINGS.deserialize(data);
        }
    }

    /** An item claimed for an async take cancelled during the claim goes to the consumer's next take. */
    /**
     * CURATOR-308: a take hung when the queue's container node was removed while it waited. Here an async take on
     * a queue whose node is gone (or not made yet) waits on an exists watch and wakes on the first offer; a
     * cancelled one leaves no watch.
     */
    @Test
    void curator308_anAsyncTakeOnAMissingQueueNodeWakesOnTheFirstOffer() throws Exception {
        String p = path("c308");
        ZkClient c = client();
        DistributedPriorityQueue<String> q = strings(c, p).priority().build();
        CompletableFuture<String> cancelled = q.takeAsync();
        eventually("the async take watches", () -> !c.watchedPaths().isEmpty());
        cancelled.cancel(false);
        assertNoWatches(c);
        CompletableFuture<String> f = q.takeAsync();
        eventually("the async take watches", () -> !c.watchedPaths().isEmpty());
        DistributedPriorityQueue<String> producer = strings(client(), p).priority().build();
        producer.offer("first", 3);
        assertEquals("first", f.get(10, TimeUnit.SECONDS));
        q.close();
        producer.close();
        assertNoWatches(c);
    }

    /** A pending async take whose session expires (its watch goes with it) looks again with the new session. */
    @Test
    void aPendingTakeAsyncGoesOnAfterItsSessionExpired() throws Exception {
        String p = path("async-expiry");
        ZkClient c = client();
        AcknowledgedPriorityQueue<String> q = strings(c, p).priority().buildAcknowledged();
        CompletableFuture<QueueItem<String>> f = q.takeAsync();
        eventually("the async take watches", () -> !c.watchedPaths().isEmpty());
        long old = c.sessionId();
        backend.expireSession(c);
        eventually("a new session", () -> c.sessionId() != old && c.state().isConnected());
        AcknowledgedPriorityQueue<String> producer = strings(client(), p).priority().buildAcknowledged();
        producer.offer("after", 1);
        QueueItem<String> item = f.get(WAIT.toSeconds(), TimeUnit.SECONDS);
        assertEquals("after", item.value());
        assertTrue(item.ack());
        q.close();
        producer.close();
        assertNoWatches(c);
    }

    @Test
    void anItemClaimedForACancelledAsyncTakeIsNotLost() throws Exception {
        String p = path("async-giveback-claimed");
        CancellingReader reader = new CancellingReader();
        DistributedPriorityQueue<String> q = Recipes.using(client()).queue(p).serializer(reader).priority().build();
        CompletableFuture<String> f = q.takeAsync();
        reader.toCancel = f;
        q.offer("x", 1);
        assertThrows(CancellationException.class, () -> f.get(10, TimeUnit.SECONDS));
        assertEquals("x", q.poll(Duration.ofSeconds(10)).orElseThrow());
        // and one given back at close is offered again
        CompletableFuture<String> g = q.takeAsync();
        reader.toCancel = g;
        q.offer("y", 1);
        assertThrows(CancellationException.class, () -> g.get(10, TimeUnit.SECONDS));
        q.close();
        DistributedPriorityQueue<String> next = strings(client(), p).priority().build();
        assertEquals("y", next.poll(Duration.ofSeconds(10)).orElseThrow());
        next.close();

        String pa = path("async-giveback-ack");
        CancellingReader ackReader = new CancellingReader();
        AcknowledgedQueue<String> a = Recipes.using(client()).queue(pa).serializer(ackReader).buildAcknowledged();
        AcknowledgedQueue<String> other = strings(client(), pa).buildAcknowledged();
        CompletableFuture<QueueItem<String>> h = a.takeAsync();
        ackReader.toCancel = h;
        a.offer("z");
        assertThrows(CancellationException.class, () -> h.get(10, TimeUnit.SECONDS));
        QueueItem<String> z = other.poll(Duration.ofSeconds(10)).orElseThrow(); // released for everyone
        assertEquals("z", z.value());
        assertTrue(z.ack());
        a.close();
        other.close();
    }

    @Test
    void anItemTakenForACancelledAsyncTakeGoesToTheNextTake() throws Exception {
        String p = path("async-giveback");
        DistributedQueue<String> q = strings(client(), p).build();
        q.offer("x");
        CompletableFuture<String> f = q.takeAsync();
        f.cancel(false);
        // cancelled before or after its claim: either way the item is not lost
        assertEquals("x", q.poll(Duration.ofSeconds(10)).orElseThrow());
        assertThrows(CancellationException.class, f::join);
        q.close();
    }
}
