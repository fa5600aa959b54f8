package dev.zkr.recipes;

import dev.zkr.client.ZkClient;
import dev.zkr.client.ZkException;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.lifecycle.AfterProperty;
import net.jqwik.api.lifecycle.BeforeProperty;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Stateful properties of the recipes on a real server: generated action sequences (run one after another; the
 * concurrency is inside the recipes) with a model, and the invariants checked after every step. Tries come from
 * {@code jqwik.tries.default} (25 by default, more under {@code -Plong}).
 */
public abstract class RecipeProperties {

    private static final AtomicLong PATHS = new AtomicLong();
    private static final Duration SETTLE = Duration.ofSeconds(20);

    private RecipeBackend backend;
    private final List<ZkClient> clients = Collections.synchronizedList(new ArrayList<>());
    private ExecutorService pool;

    protected abstract RecipeBackend createBackend();

    @BeforeProperty
    void start() {
        backend = createBackend();
        pool = Executors.newCachedThreadPool();
    }

    @AfterProperty
    void stop() throws InterruptedException {
        pool.shutdownNow();
        pool.awaitTermination(10, TimeUnit.SECONDS);
        closeClients();
        backend.close();
    }

    private void closeClients() {
        synchronized (clients) {
            for (ZkClient c : clients) {
                try {
                    c.close();
                } catch (RuntimeException e) {
                    // closed already
                }
            }
            clients.clear();
        }
    }

    private ZkClient client() {
        ZkClient c = backend.newClient(Duration.ofSeconds(10));
        clients.add(c);
        return c;
    }

    private static String freshPath(String name) {
        return "/prop-" + name + "-" + PATHS.incrementAndGet();
    }

    private static void eventually(String what, BooleanSupplier condition) {
        long deadline = System.nanoTime() + SETTLE.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                fail("did not settle: " + what);
            }
            try {
                Thread.sleep(5); // polling with a deadline
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                fail("interrupted");
            }
        }
    }

    private static List<String> children(ZkClient c, String path) {
        try {
            return c.getChildren(path);
        } catch (ZkException.NoNode e) {
            return List.of();
        }
    }

    /** Expires the client's session and waits for its new one. */
    private void expire(ZkClient c) {
        long old = c.sessionId();
        backend.expireSession(c);
        eventually("a new session", () -> c.sessionId() != old && c.state().isConnected());
    }

    /** True when every child of path is an ephemeral of one of the given sessions. */
    private static boolean ownedBy(ZkClient observer, String path, Set<Long> sessions) {
        for (String child : children(observer, path)) {
            try {
                if (!sessions.contains(observer.exists(path + "/" + child).ephemeralOwner())) {
                    return false;
                }
            } catch (RuntimeException e) {
                return false;
            }
        }
        return true;
    }

    // ---- actions ------------------------------------------------------------------------------------------------

    enum Kind { REQUEST, RELEASE, EXPIRE, READ, WRITE }

    record Step(Kind kind, int who) {
    }

    private static Arbitrary<List<Step>> steps(int participants, Kind... kinds) {
        Arbitrary<Kind> kind = Arbitraries.of(kinds);
        Arbitrary<Integer> who = Arbitraries.integers().between(0, participants - 1);
        return Combinators.combine(kind, who).as(Step::new).list().ofMinSize(1).ofMaxSize(10);
    }

    @Provide
    Arbitrary<List<Step>> lockSteps() {
        return Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(5, Arbitraries.just(Kind.REQUEST)),
                net.jqwik.api.Tuple.of(4, Arbitraries.just(Kind.RELEASE)),
                net.jqwik.api.Tuple.of(1, Arbitraries.just(Kind.EXPIRE)))
                .list().ofMinSize(1).ofMaxSize(10)
                .flatMap(ks -> Arbitraries.integers().between(0, 2).list().ofSize(ks.size())
                        .map(ws -> {
                            List<Step> out = new ArrayList<>();
                            for (int i = 0; i < ks.size(); i++) {
                                out.add(new Step(ks.get(i), ws.get(i)));
                            }
                            return out;
                        }));
    }

    @Provide
    Arbitrary<List<Step>> rwSteps() {
        return steps(4, Kind.READ, Kind.WRITE, Kind.RELEASE, Kind.RELEASE);
    }

    // ---- lock: at most one holder, FIFO, expiry ----------------------------------------------------------------

    private final class LockUser {
        final ZkClient client;
        final DistributedLock lock;
        Future<LockLease> pending;
        boolean write;
        /** The lease the last acquire returned (kept even if its future was cancelled meanwhile). */
        private volatile LockLease acquired;
        private CountDownLatch acquireEnded;

        LockUser(String path) {
            this.client = client();
            this.lock = Recipes.using(client).lock(path);
        }

        LockUser(ZkClient client, String path, boolean write) {
            this.client = client;
            ReadWriteLock rw = Recipes.using(client).readWriteLock(path);
            this.lock = write ? rw.writeLock() : rw.readLock();
            this.write = write;
        }

        /** Starts acquiring on the pool. */
        void startAcquire() {
            CountDownLatch ended = new CountDownLatch(1);
            acquired = null;
            acquireEnded = ended;
            pending = pool.submit(() -> {
                try {
                    LockLease lease = lock.acquire();
                    acquired = lease;
                    return lease;
                } finally {
                    ended.countDown();
                }
            });
        }

        /**
         * Releases a held lease, or abandons a pending acquire: interrupted, it removes its node; if it was granted
         * just as it was cancelled (the future then drops the lease), the lease it got is closed here.
         */
        void finish() throws Exception {
            if (pending == null) {
                return;
            }
            if (!pending.isDone()) {
                pending.cancel(true);
            }
            assertTrue(acquireEnded.await(SETTLE.toSeconds(), TimeUnit.SECONDS), "acquire did not end");
            LockLease lease = acquired;
            if (lease != null) {
                lease.close();
            }
            pending = null;
        }

        boolean holds() {
            if (pending == null || !pending.isDone()) {
                return false;
            }
            try {
                return pending.get().isValid();
            } catch (Exception e) {
                return false;
            }
        }

        void release() throws Exception {
            pending.get(SETTLE.toSeconds(), TimeUnit.SECONDS).close();
            pending = null;
        }
    }

    @Property
    void lockIsExclusiveAndFifo(@ForAll("lockSteps") List<Step> steps) throws Exception {
        String p = freshPath("lock");
        ZkClient observer = client();
        List<LockUser> users = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            users.add(new LockUser(p));
        }
        Deque<Integer> model = new ArrayDeque<>();
        for (Step s : steps) {
            LockUser u = users.get(s.who());
            switch (s.kind()) {
                case REQUEST -> {
                    if (u.pending == null) {
                        u.startAcquire();
                        model.addLast(s.who());
                    }
                }
                case RELEASE -> {
                    if (u.pending != null && model.peekFirst() == s.who()) {
                        u.release();
                        model.removeFirst();
                    }
                }
                case EXPIRE -> {
                    boolean holder = u.pending != null && model.peekFirst() == s.who();
                    expire(u.client);
                    if (holder) {
                        LockLease lost = u.pending.get();
                        eventually("lease lost", () -> lost.state() == LeaseState.LOST);
                        lost.close();
                        u.pending = null;
                        model.removeFirst();
                    } else if (u.pending != null) {
                        model.remove(s.who());
                        model.addLast(s.who()); // a waiter queues again with its new session
                    }
                }
                default -> throw new IllegalStateException();
            }
            settleExclusive(observer, p, users, model);
        }
        for (LockUser u : users) {
            finish(u);
        }
        eventually("all nodes gone", () -> children(observer, p).isEmpty());
    }

    /** Releases a held lease, or abandons a pending acquire (which removes its node). */
    private static void finish(LockUser u) throws Exception {
        if (u != null) {
            u.finish();
        }
    }

    private void settleExclusive(ZkClient observer, String p, List<LockUser> users, Deque<Integer> model) {
        Set<Long> sessions = new HashSet<>();
        for (int i : model) {
            sessions.add(users.get(i).client.sessionId());
        }
        eventually("queue matches the model " + model, () -> children(observer, p).size() == model.size()
                && ownedBy(observer, p, sessions)
                && (model.isEmpty() || users.get(model.peekFirst()).holds()));
        int holders = 0;
        for (int i = 0; i < users.size(); i++) {
            if (users.get(i).holds()) {
                holders++;
                assertEquals(model.peekFirst(), i, "the holder is the earliest arrival");
            }
        }
        assertTrue(holders <= 1, "at most one holder");
    }

    // ---- read/write lock: no writer alongside anyone, order kept --------------------------------------------------

    @Property
    void readWriteLockExcludesWriters(@ForAll("rwSteps") List<Step> steps) throws Exception {
        String p = freshPath("rw");
        ZkClient observer = client();
        List<ZkClient> cs = List.of(client(), client(), client(), client());
        List<LockUser> users = new ArrayList<>(Collections.nCopies(4, null));
        List<Integer> model = new ArrayList<>(); // arrival order
        for (Step s : steps) {
            int w = s.who();
            LockUser u = users.get(w);
            switch (s.kind()) {
                case READ, WRITE -> {
                    if (u == null) {
                        u = new LockUser(cs.get(w), p, s.kind() == Kind.WRITE);
                        users.set(w, u);
                        u.startAcquire();
                        model.add(w);
                    }
                }
                case RELEASE -> {
                    if (u != null && expectedHolders(model, users).contains(w)) {
                        u.release();
                        users.set(w, null);
                        model.remove(Integer.valueOf(w));
                    }
                }
                default -> throw new IllegalStateException();
            }
            Set<Integer> expected = expectedHolders(model, users);
            eventually("holders " + expected, () -> children(observer, p).size() == model.size()
                    && expected.stream().allMatch(i -> users.get(i).holds()));
            Set<Integer> holding = new TreeSet<>();
            for (int i = 0; i < users.size(); i++) {
                if (users.get(i) != null && users.get(i).holds()) {
                    holding.add(i);
                }
            }
            assertEquals(expected, holding, "holders follow the classic rules");
            long writers = holding.stream().filter(i -> users.get(i).write).count();
            assertTrue(writers == 0 || holding.size() == 1, "no writer alongside any other holder");
        }
        for (LockUser u : users) {
            finish(u);
        }
        eventually("all nodes gone", () -> children(observer, p).isEmpty());
    }

    private static Set<Integer> expectedHolders(List<Integer> model, List<LockUser> users) {
        Set<Integer> out = new TreeSet<>();
        for (int i = 0; i < model.size(); i++) {
            LockUser u = users.get(model.get(i));
            if (u.write) {
                if (i == 0) {
                    out.add(model.get(i));
                }
                break;
            }
            out.add(model.get(i));
        }
        return out;
    }

    // ---- fair leader election ------------------------------------------------------------------------------------

    @Property
    void fairElectionHasOneLeaderInArrivalOrder(@ForAll("lockSteps") List<Step> steps) {
        String p = freshPath("latch");
        ZkClient observer = client();
        List<ZkClient> cs = List.of(client(), client(), client());
        List<LeaderLatch> latches = new ArrayList<>(Collections.nCopies(3, null));
        Deque<Integer> model = new ArrayDeque<>();
        for (Step s : steps) {
            int w = s.who();
            switch (s.kind()) {
                case REQUEST -> {
                    if (latches.get(w) == null) {
                        latches.set(w, Recipes.using(cs.get(w)).leaderLatch(p).id("p" + w).fair().start());
                        model.addLast(w);
                    }
                }
                case RELEASE -> {
                    if (latches.get(w) != null) {
                        latches.get(w).close();
                        latches.set(w, null);
                        model.remove(w);
                    }
                }
                case EXPIRE -> {
                    expire(cs.get(w));
                    if (latches.get(w) != null) {
                        model.remove(w);
                        model.addLast(w); // rejoins with its new session, at the end
                    }
                }
                default -> throw new IllegalStateException();
            }
            Set<Long> sessions = new HashSet<>();
            for (int i : model) {
                sessions.add(cs.get(i).sessionId());
            }
            eventually("leader is the earliest of " + model, () -> children(observer, p).size() == model.size()
                    && ownedBy(observer, p, sessions)
                    && (model.isEmpty() || latches.get(model.peekFirst()).isLeader()));
            long leaders = latches.stream().filter(l -> l != null && l.isLeader()).count();
            assertTrue(leaders <= 1, "at most one leader");
            assertEquals(model.isEmpty() ? 0 : 1, leaders);
        }
        latches.stream().filter(l -> l != null).forEach(LeaderLatch::close);
        for (ZkClient c : cs) {
            eventually("no watches", () -> c.watchedPaths().isEmpty());
        }
    }

    // ---- counter --------------------------------------------------------------------------------------------------

    record CounterStep(int who, int op, int delta) {
    }

    @Provide
    Arbitrary<List<CounterStep>> counterSteps() {
        return Combinators.combine(Arbitraries.integers().between(0, 2), Arbitraries.integers().between(0, 3),
                Arbitraries.integers().between(-5, 70)).as(CounterStep::new).list().ofMinSize(1).ofMaxSize(10);
    }

    @Property
    void counterMatchesTheModel(@ForAll("counterSteps") List<CounterStep> steps) throws Exception {
        String p = freshPath("counter");
        List<DistributedCounter> counters = List.of(Recipes.using(client()).counter(p),
                Recipes.using(client()).counter(p), Recipes.using(client()).counter(p));
        long model = 0;
        for (CounterStep s : steps) {
            DistributedCounter c = counters.get(s.who());
            switch (s.op()) {
                case 0 -> {
                    model += s.delta();
                    assertEquals(model, c.addAndGet(s.delta()));
                }
                case 1 -> {
                    boolean right = s.delta() >= 0;
                    long expect = right ? model : model + 1;
                    assertEquals(right, c.compareAndSet(expect, s.delta()));
                    if (right) {
                        model = s.delta();
                    }
                }
                case 2 -> assertEquals(model, c.get());
                default -> { // concurrent increments from every client: distinct results
                    Set<Long> results = ConcurrentHashMap.newKeySet();
                    List<Future<?>> fs = new ArrayList<>();
                    for (DistributedCounter each : counters) {
                        fs.add(pool.submit(() -> {
                            for (int k = 0; k < 5; k++) {
                                assertTrue(results.add(each.incrementAndGet()));
                            }
                            return null;
                        }));
                    }
                    for (Future<?> f : fs) {
                        f.get(30, TimeUnit.SECONDS);
                    }
                    Set<Long> expected = new HashSet<>();
                    for (long v = model + 1; v <= model + 15; v++) {
                        expected.add(v);
                    }
                    assertEquals(expected, results);
                    model += 15;
                }
            }
            assertEquals(model, counters.get(0).get(), "counter equals the model");
        }
    }

    // ---- queue ----------------------------------------------------------------------------------------------------

    @Provide
    Arbitrary<List<Step>> queueSteps() {
        // REQUEST = offer, RELEASE = take by consumer who, EXPIRE = concurrent drain by all consumers
        return Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(5, Arbitraries.just(Kind.REQUEST)),
                net.jqwik.api.Tuple.of(3, Arbitraries.just(Kind.RELEASE)),
                net.jqwik.api.Tuple.of(1, Arbitraries.just(Kind.EXPIRE)))
                .list().ofMinSize(1).ofMaxSize(12)
                .flatMap(ks -> Arbitraries.integers().between(0, 1).list().ofSize(ks.size())
                        .map(ws -> {
                            List<Step> out = new ArrayList<>();
                            for (int i = 0; i < ks.size(); i++) {
                                out.add(new Step(ks.get(i), ws.get(i)));
                            }
                            return out;
                        }));
    }

    @Property
    void queueDeliversEveryItemOnceInOrder(@ForAll("queueSteps") List<Step> steps) throws Exception {
        String p = freshPath("queue");
        DistributedQueue<byte[]> producer = Recipes.using(client()).queue(p).build();
        List<DistributedQueue<byte[]>> consumers = List.of(Recipes.using(client()).queue(p).build(),
                Recipes.using(client()).queue(p).build());
        Deque<Integer> model = new ArrayDeque<>();
        int next = 0;
        for (Step s : steps) {
            switch (s.kind()) {
                case REQUEST -> {
                    producer.offer(bytes(next));
                    model.addLast(next++);
                }
                case RELEASE -> {
                    Optional<byte[]> got = consumers.get(s.who()).poll(Duration.ofMillis(model.isEmpty() ? 20 : 5000));
                    assertEquals(Optional.ofNullable(model.pollFirst()), got.map(RecipeProperties::value), "FIFO");
                }
                default -> {
                    Set<Integer> got = ConcurrentHashMap.newKeySet();
                    List<Future<?>> fs = new ArrayList<>();
                    int expected = model.size();
                    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                    for (DistributedQueue<byte[]> q : consumers) {
                        fs.add(pool.submit(() -> {
                            // drain until every item is out: an empty 100 ms poll only means that consumer's
                            // deadline passed (e.g. while it lost races for items), not that the queue is empty
                            while (got.size() < expected && System.nanoTime() < end) {
                                Optional<byte[]> item = q.poll(Duration.ofMillis(100));
                                if (item.isPresent()) {
                                    assertTrue(got.add(value(item.get())), "delivered once");
                                }
                            }
                            return null;
                        }));
                    }
                    for (Future<?> f : fs) {
                        f.get(30, TimeUnit.SECONDS);
                    }
                    assertEquals(new HashSet<>(model), got, "every item delivered exactly once");
                    model.clear();
                }
            }
            assertEquals(model.size(), producer.size());
        }
        producer.close();
        consumers.forEach(DistributedQueue::close);
    }

    @Property
    void acknowledgedQueueRedeliversUntilAcked(@ForAll("lockSteps") List<Step> steps) throws Exception {
        // REQUEST = offer, RELEASE = take+ack by consumer who, EXPIRE = consumer who takes one and dies
        String p = freshPath("ackq");
        AcknowledgedQueue<byte[]> producer = Recipes.using(client()).queue(p).buildAcknowledged();
        List<AcknowledgedQueue<byte[]>> consumers = new ArrayList<>();
        List<ZkClient> consumerClients = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            ZkClient c = client();
            consumerClients.add(c);
            consumers.add(Recipes.using(c).queue(p).buildAcknowledged());
        }
        Set<Integer> model = new TreeSet<>();
        Set<Integer> acked = new HashSet<>();
        int next = 0;
        for (Step s : steps) {
            int w = s.who();
            switch (s.kind()) {
                case REQUEST -> {
                    producer.offer(bytes(next));
                    model.add(next++);
                }
                case RELEASE -> {
                    Optional<QueueItem<byte[]>> item = consumers.get(w).poll(Duration.ofMillis(model.isEmpty() ? 20 : 5000));
                    assertEquals(!model.isEmpty(), item.isPresent());
                    if (item.isPresent()) {
                        int v = value(item.get().value());
                        assertTrue(model.remove(v), "an unacknowledged item");
                        assertTrue(item.get().ack());
                        assertTrue(acked.add(v), "acknowledged once");
                    }
                }
                default -> {
                    Optional<QueueItem<byte[]>> item = consumers.get(w).poll(Duration.ofMillis(model.isEmpty() ? 20 : 5000));
                    consumerClients.get(w).close(); // dies holding the item
                    ZkClient c = client();
                    consumerClients.set(w, c);
                    consumers.set(w, Recipes.using(c).queue(p).buildAcknowledged());
                }
            }
            assertEquals(model.size(), producer.size(), "unacknowledged items stay queued");
        }
        // whatever is left is delivered again and acknowledged once
        while (!model.isEmpty()) {
            QueueItem<byte[]> item = consumers.get(0).poll(SETTLE).orElseThrow();
            int v = value(item.value());
            assertTrue(model.remove(v));
            assertTrue(item.ack());
            assertTrue(acked.add(v));
        }
        assertEquals(next, acked.size());
        producer.close();
        consumers.forEach(AcknowledgedQueue::close);
    }

    private static byte[] bytes(int v) {
        return Integer.toString(v).getBytes(java.nio.charset.StandardCharsets.UTF_8);
    }

    private static int value(byte[] b) {
        return Integer.parseInt(new String(b, java.nio.charset.StandardCharsets.UTF_8));
    }

    // ---- double barrier ---------------------------------------------------------------------------------------------

    @Provide
    Arbitrary<List<Integer>> orders() {
        return Arbitraries.just(List.of(0, 1, 2, 3)).flatMap(l -> Arbitraries.shuffle(l));
    }

    @Property
    void barrierHoldsEveryoneUntilAllArrivedAndAllLeft(@ForAll @IntRange(min = 2, max = 4) int parties,
                                                       @ForAll("orders") List<Integer> arrival,
                                                       @ForAll("orders") List<Integer> departure,
                                                       @ForAll @IntRange(min = 0, max = 15) int diesMask)
            throws Exception {
        String p = freshPath("barrier");
        ZkClient observer = client();
        List<ZkClient> cs = new ArrayList<>();
        List<DoubleBarrier> bs = new ArrayList<>();
        for (int i = 0; i < parties; i++) {
            ZkClient c = client();
            cs.add(c);
            bs.add(Recipes.using(c).doubleBarrier(p).parties(parties).memberId("m" + i).build());
        }
        List<Future<?>> entered = new ArrayList<>(Collections.nCopies(parties, null));
        int arrived = 0;
        for (int i : arrival) {
            if (i >= parties) {
                continue;
            }
            DoubleBarrier b = bs.get(i);
            entered.set(i, pool.submit(() -> b.enter()));
            arrived++;
            int n = arrived;
            eventually(n + " arrived", () -> children(observer, p).stream().filter(x -> !x.equals("ready")).count() == n);
            if (arrived < parties) {
                for (Future<?> f : entered) {
                    assertTrue(f == null || !f.isDone(), "nobody past enter before all arrived");
                }
            }
        }
        for (Future<?> f : entered) {
            f.get(20, TimeUnit.SECONDS);
        }
        List<Future<?>> left = new ArrayList<>();
        int gone = 0;
        for (int i : departure) {
            if (i >= parties) {
                continue;
            }
            gone++;
            if ((diesMask & (1 << i)) != 0) {
                cs.get(i).close(); // dies inside the barrier
            } else {
                DoubleBarrier b = bs.get(i);
                left.add(pool.submit(() -> b.leave()));
            }
            if (gone < parties) {
                // someone is still inside: nobody may be out yet (give the leavers a moment to go wrong)
                Thread.sleep(20);
                for (Future<?> f : left) {
                    assertTrue(!f.isDone(), "nobody past leave before all left or died");
                }
            }
        }
        for (Future<?> f : left) {
            f.get(20, TimeUnit.SECONDS);
        }
    }

    // ---- group membership ----------------------------------------------------------------------------------------

    @Property
    void membershipViewConvergesToTheLiveSet(@ForAll("lockSteps") List<Step> steps) {
        // REQUEST = join, RELEASE = leave (or crash for participant 2), EXPIRE = session expiry (rejoins)
        String p = freshPath("group");
        List<ZkClient> cs = new ArrayList<>(List.of(client(), client(), client()));
        List<GroupMembership> gs = new ArrayList<>(Collections.nCopies(3, null));
        Set<String> model = new TreeSet<>();
        for (Step s : steps) {
            int w = s.who();
            switch (s.kind()) {
                case REQUEST -> {
                    if (gs.get(w) == null) {
                        gs.set(w, Recipes.using(cs.get(w)).group(p).memberId("m" + w).join());
                        model.add("m" + w);
                    }
                }
                case RELEASE -> {
                    if (gs.get(w) != null) {
                        if (w == 2) {
                            cs.get(w).close(); // crash
                            cs.set(w, client());
                        } else {
                            gs.get(w).close();
                        }
                        gs.set(w, null);
                        model.remove("m" + w);
                    }
                }
                case EXPIRE -> expire(cs.get(w));
                default -> throw new IllegalStateException();
            }
            List<String> expected = List.copyOf(model);
            eventually("views converge to " + expected, () -> gs.stream().allMatch(g -> g == null
                    || (g.memberIds().equals(expected) && g.isMember())));
        }
        gs.stream().filter(g -> g != null).forEach(GroupMembership::close);
        for (ZkClient c : cs) {
            eventually("no watches", () -> c.watchedPaths().isEmpty());
        }
    }
}
