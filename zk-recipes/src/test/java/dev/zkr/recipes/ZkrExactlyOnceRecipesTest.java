package dev.zkr.recipes;

import dev.zkr.client.ConnectionState;
import dev.zkr.client.CreateMode;
import dev.zkr.client.Op;
import dev.zkr.client.Parents;
import dev.zkr.client.ZkClient;
import dev.zkr.client.ZkException;
import dev.zkr.consensus.Role;
import dev.zkr.testkit.TestEnsemble;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Recipes on zkr's exactly-once writes (issue 30), on 3 real servers: a recipe write in flight when the server its
 * client is connected to is paused and killed completes with its real outcome once the client is back, exactly
 * once, and the recipe sends none of the look-ups (sync, listing) or ledger writes that only resolve a lost response
 * on a client without the guarantee; and a write in flight when the session is lost (zkr's client: SessionExpired
 * saying "outcome unknown") is never taken for one that was not sent. Only on zkr: Apache ZooKeeper has no such
 * writes (its recipes keep the workarounds; the shared suites run them there, and here through
 * {@link LostResponseClient}, which says it has no exactly-once writes).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(60)
class ZkrExactlyOnceRecipesTest {

    private static final Duration SESSION = Duration.ofSeconds(10);
    private static final Duration WAIT = Duration.ofSeconds(20);

    private TestEnsemble ensemble;
    private ExecutorService pool;
    private String root;

    @BeforeAll
    void start() {
        ensemble = TestEnsemble.builder().servers(3).start();
    }

    @AfterAll
    void stop() {
        ensemble.close();
    }

    @BeforeEach
    void fresh(TestInfo info) {
        awaitInStep();
        pool = Executors.newCachedThreadPool();
        root = "/eo-" + info.getTestMethod().map(m -> m.getName()).orElse("x");
    }

    @AfterEach
    void shutdownPool() {
        pool.shutdownNow();
    }

    @Test
    void theNativeClientHasExactlyOnceWritesAndTheWrappersSayWhatTheyDo() {
        ZkClient c = ensemble.newClient(SESSION);
        assertTrue(c.exactlyOnceWrites());
        assertTrue(new CountingClient(c).exactlyOnceWrites(), "counting forwards it");
        assertTrue(Recipes.using(c).withAcl(dev.zkr.client.Acls.OPEN_UNSAFE).client().exactlyOnceWrites(),
                "the ACL view forwards it");
        assertFalse(new LostResponseClient(c).exactlyOnceWrites(), "it loses responses as ConnectionLoss");
        ZkClient chrooted = ensemble.newClient(b -> b.connectString(ensemble.connectString() + "/eo-chroot"));
        assertTrue(chrooted.exactlyOnceWrites(), "a chroot forwards it");
    }

    /** A lock's create in flight through a follower that is killed: one node, held, no look-up for it. */
    @Test
    void aLockAcquireInFlightWhenItsServerIsKilledHoldsWithOneNodeAndNoSearch() throws Exception {
        int server = follower();
        CountingClient c = new CountingClient(clientOn(server));
        ZkClient observer = ensemble.newClient(SESSION);
        DistributedLock lock = Recipes.using(c).lock(root);
        lock.acquire().close(); // the parent exists
        c.reset();
        LockLease undisturbed = lock.acquire();
        Map<CountingClient.Kind, Long> calm = requests(c); // the requests of an acquire that nothing disturbs
        undisturbed.close();
        c.reset();
        LockLease lease = inFlightWhileKilled(server, c, CountingClient.Kind.CREATE, lock::acquire);
        assertTrue(lease.isValid());
        List<String> nodes = observer.getChildren(root);
        assertEquals(1, nodes.size(), "one lock node: " + nodes);
        assertEquals(c.sessionId(), observer.exists(root + "/" + nodes.get(0)).ephemeralOwner());
        assertEquals(calm, requests(c), "the same requests as an undisturbed acquire (no sync, no second listing)");
        assertEquals(0, c.count(CountingClient.Kind.SYNC));
        lease.close();
    }

    /** An increment's multi in flight through the leader that is killed: +1 once, no look-up for its children. */
    @Test
    void aCounterIncrementInFlightWhenTheLeaderIsKilledCountsOnceWithNoSearch() throws Exception {
        int server = ensemble.leader();
        CountingClient c = new CountingClient(clientOn(server));
        ZkClient observer = ensemble.newClient(SESSION);
        DistributedCounter counter = Recipes.using(c).counter(root);
        assertEquals(1, counter.incrementAndGet()); // created, and its state cached
        c.reset();
        long value = inFlightWhileKilled(server, c, CountingClient.Kind.MULTI, counter::incrementAndGet);
        assertEquals(2, value);
        assertEquals(2, Recipes.using(observer).counter(root).get(), "applied once");
        assertEquals(Map.of(CountingClient.Kind.MULTI, 1L), requests(c), "the increment's multi alone");
    }

    /** An offer's create in flight through a follower that is killed: one item, no ledger, no look-up. */
    @Test
    void aQueueOfferInFlightWhenItsServerIsKilledQueuesOneItemWithNoLedger() throws Exception {
        int server = follower();
        CountingClient c = new CountingClient(clientOn(server));
        ZkClient observer = ensemble.newClient(SESSION);
        observer.create(root, null, CreateMode.PERSISTENT, Parents.PERSISTENT);
        DistributedQueue<byte[]> queue = Recipes.using(c).queue(root).build();
        inFlightWhileKilled(server, c, CountingClient.Kind.CREATE, () -> {
            queue.offer("once".getBytes());
            return null;
        });
        assertEquals(1, observer.getChildren(root).size(), "one item: " + observer.getChildren(root));
        assertNull(observer.exists(root + "-offers"), "no ledger");
        assertEquals(Map.of(CountingClient.Kind.CREATE, 1L), requests(c), "the item's create alone");
        queue.close();
    }

    /**
     * An increment applied whose answer the lost session took (zkr's client: SessionExpired, "outcome unknown"):
     * its children went with the session, so the counter cannot tell and says so; it must not count it again.
     */
    @Test
    void anIncrementInFlightWhenTheSessionIsLostIsNotCountedAgain() {
        ZkClient real = ensemble.newClient(SESSION);
        ZkClient observer = ensemble.newClient(SESSION);
        DistributedCounter counter = Recipes.using(sessionLostAfter(real, "multiAsync", a -> true)).counter(root);
        observer.create(root, null, CreateMode.PERSISTENT);
        Recipes.using(observer).counter(root).incrementAndGet();
        assertThrows(ZkException.SessionExpired.class, counter::incrementAndGet);
        assertEquals(2, Recipes.using(observer).counter(root).get(), "applied once, not again");
    }

    /** A decrement's write (under the gate) applied whose answer the lost session took: found by its tag, once. */
    @Test
    void aDecrementInFlightWhenTheSessionIsLostIsFoundAppliedOnce() {
        ZkClient real = ensemble.newClient(SESSION);
        ZkClient observer = ensemble.newClient(SESSION);
        Recipes.using(observer).counter(root).addAndGet(5);
        DistributedCounter counter = Recipes.using(sessionLostAfter(real, "multiAsync",
                args -> ((List<?>) args[0]).stream().anyMatch(o -> o instanceof Op.SetData))).counter(root);
        assertEquals(4, counter.decrementAndGet());
        assertEquals(4, Recipes.using(observer).counter(root).get(), "applied once, not twice");
    }

    /** A persistent sequential node's create applied whose answer the lost session took: adopted, not made twice. */
    @Test
    void aPersistentSequentialCreateInFlightWhenTheSessionIsLostIsNotMadeTwice() {
        ZkClient real = ensemble.newClient(SESSION);
        ZkClient observer = ensemble.newClient(SESSION);
        PersistentNode node = Recipes.using(sessionLostAfter(real, "createAsync",
                args -> ((String) args[0]).startsWith(root + "/"))).persistentNode(root + "/n-")
                .mode(CreateMode.PERSISTENT_SEQUENTIAL).start();
        assertTrue(node.await(WAIT));
        assertEquals(1, observer.getChildren(root).size(), "one node: " + observer.getChildren(root));
        node.close();
    }

    // ---- helpers ------------------------------------------------------------------------------------------------

    /**
     * Runs {@code op} while {@code server} is paused, and once the client has sent one more request of {@code kind}
     * (the write under test), kills the server and starts it again: the write was in flight, unanswered, when its
     * connection died. Returns the op's result.
     */
    private <T> T inFlightWhileKilled(int server, CountingClient c, CountingClient.Kind kind, Callable<T> op)
            throws Exception {
        long before = c.count(kind);
        long session = c.sessionId();
        List<ConnectionState> states = new CopyOnWriteArrayList<>();
        c.addConnectionStateListener((client, state) -> states.add(state));
        ensemble.pause(server);
        Future<T> result = pool.submit(op);
        eventually("the write sent", () -> c.count(kind) > before);
        ensemble.kill(server);
        ensemble.restart(server);
        T out = result.get(WAIT.toSeconds(), TimeUnit.SECONDS);
        assertEquals(List.of(ConnectionState.SUSPENDED, ConnectionState.RECONNECTED), states,
                "the connection dropped under the write, and the same session came back");
        assertEquals(session, c.sessionId());
        return out;
    }

    /**
     * A view of {@code real} whose first call of {@code method} matching {@code which} is applied, then its session
     * expires, and the call fails as zkr's client fails a write in flight when its session is lost (once the client
     * has its new session): SessionExpired saying the outcome is unknown. Everything else goes to {@code real}.
     */
    private ZkClient sessionLostAfter(ZkClient real, String method, Predicate<Object[]> which) {
        AtomicBoolean done = new AtomicBoolean();
        return (ZkClient) Proxy.newProxyInstance(ZkClient.class.getClassLoader(), new Class<?>[] {ZkClient.class},
                (proxy, m, args) -> {
                    if (m.isDefault() && !m.getName().endsWith("Async") && !m.getName().equals("exactlyOnceWrites")) {
                        return InvocationHandler.invokeDefault(proxy, m, args); // blocking forms: through the async
                    }
                    Object out;
                    try {
                        out = m.invoke(real, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                    if (!m.getName().equals(method) || !which.test(args) || done.getAndSet(true)) {
                        return out;
                    }
                    long session = real.sessionId();
                    return ((CompletableFuture<?>) out).handleAsync((v, err) -> {
                        ensemble.expireSession(session);
                        eventually("a new session", () -> real.sessionId() != session && real.state().isConnected());
                        throw new ZkException.SessionExpired(null, "the session was lost (test) while this write"
                                + " was in flight: outcome unknown, it may or may not have been applied", true);
                    }, pool);
                });
    }

    private ZkClient clientOn(int server) {
        return ensemble.newClient(b -> b.connectString(ensemble.connectString(server)).sessionTimeout(SESSION));
    }

    private int follower() {
        return (ensemble.leader() + 1) % ensemble.size();
    }

    /** The requests sent, by kind (watch events and kinds never sent left out). */
    private static Map<CountingClient.Kind, Long> requests(CountingClient c) {
        Map<CountingClient.Kind, Long> out = new java.util.EnumMap<>(c.snapshot());
        out.remove(CountingClient.Kind.EVENT);
        out.values().removeIf(n -> n == 0);
        return out;
    }

    /** Every server runs and follows one leader (a restarted one rejoined). */
    private void awaitInStep() {
        eventually("the ensemble in step", () -> {
            int leader = ensemble.leader();
            int id = ensemble.server(leader).serverId();
            for (int i = 0; i < ensemble.size(); i++) {
                if (!ensemble.isRunning(i) || ensemble.server(i).leaderId() != id
                        || i != leader && ensemble.server(i).role() != Role.FOLLOWER) {
                    return false;
                }
            }
            return true;
        });
    }

    private static void eventually(String what, BooleanSupplier condition) {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                fail("timed out waiting for " + what);
            }
            LockSupport.parkNanos(2_000_000); // polling a condition of other threads and servers
        }
    }
}
