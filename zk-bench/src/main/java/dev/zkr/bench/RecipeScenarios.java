package dev.zkr.bench;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiFunction;

/**
 * The recipe scenarios, written once against {@link RecipeSession} and run for Curator on ZooKeeper, zkr recipes on
 * the zkr server, and zkr recipes on ZooKeeper. Every contender has its own session.
 */
final class RecipeScenarios {

    static final int LOCK_CONTENDERS = 8;
    static final int ELECTION_PARTICIPANTS = 5;
    static final int BARRIER_PARTIES = 10;
    static final int QUEUE_CONSUMERS = 4;
    static final int QUEUE_BACKLOG = 100;
    static final int SEMAPHORE_PERMITS = 3;

    /** Waiters of the async lock row ({@code -Dzkr.bench.waiters=N} for a smaller smoke run). */
    static final int ASYNC_LOCK_WAITERS = Integer.getInteger("zkr.bench.waiters", 10_000);

    /** How long the async lock row may take to queue its waiters, and again to pass the lock through them. */
    static final Duration ASYNC_LOCK_DEADLINE = Duration.ofMinutes(10);

    private RecipeScenarios() {
    }

    /**
     * Async lock: a first holder, then {@link #ASYNC_LOCK_WAITERS} waiters queued on one lock path through one
     * session ({@link RecipeSession#queueWaiter}); once every waiter's node is there, the first holder releases and
     * the lock passes through all of them, each releasing as soon as it holds. Figures: handoffs/s (waiters over the
     * time from the first release to the last waiter's release) and the JVM's thread count while they all wait. A
     * round fails if two waiters hold at once.
     */
    static Measurement[] asyncLock(RecipeSession.Factory factory, String cs, String root) throws Exception {
        String path = root + "/asynclock";
        int n = ASYNC_LOCK_WAITERS;
        return withSessions(factory, cs, 2, sessions -> {
            RecipeSession s = sessions.get(0);
            RecipeSession.Held first = s.mutex(path).acquire();
            AtomicInteger holders = new AtomicInteger();
            AtomicInteger overlaps = new AtomicInteger();
            List<CompletableFuture<Void>> done = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                done.add(s.queueWaiter(path, () -> {
                    if (holders.incrementAndGet() != 1) {
                        overlaps.incrementAndGet();
                    }
                    holders.decrementAndGet();
                }));
            }
            long queueBy = System.nanoTime() + ASYNC_LOCK_DEADLINE.toNanos();
            while (sessions.get(1).childCount(path) < n + 1) { // a bench's poll, not a test's synchronisation
                if (System.nanoTime() - queueBy > 0) {
                    throw new IllegalStateException("waiters not all queued within " + ASYNC_LOCK_DEADLINE);
                }
                Thread.sleep(50);
            }
            int threads = ManagementFactory.getThreadMXBean().getThreadCount();
            long start = System.nanoTime();
            first.release();
            CompletableFuture.allOf(done.toArray(new CompletableFuture[0]))
                    .get(ASYNC_LOCK_DEADLINE.toMillis(), TimeUnit.MILLISECONDS);
            double seconds = (System.nanoTime() - start) / 1e9;
            if (overlaps.get() > 0) {
                String why = overlaps.get() + " waiters held beside another";
                return new Measurement[] {Measurement.failed(why), Measurement.failed(why)};
            }
            return new Measurement[] {Measurement.of(n / seconds), Measurement.of(threads)};
        });
    }

    /** Lock handoffs/s: 8 contenders looping acquire/release on one lock. */
    static Measurement lock(RecipeSession.Factory factory, String cs, String root, Window window) throws Exception {
        return acquisitions(factory, cs, window, "lock", Integer.MAX_VALUE, (s, i) -> s.mutex(root + "/lock"));
    }

    /**
     * Semaphore acquisitions/s: 8 contenders looping acquire/release of one permit of a 3-permit semaphore; a round
     * fails if more than 3 contenders ever hold a permit at once.
     */
    static Measurement semaphore(RecipeSession.Factory factory, String cs, String root, Window window)
            throws Exception {
        return acquisitions(factory, cs, window, "semaphore", SEMAPHORE_PERMITS,
                (s, i) -> s.semaphore(root + "/semaphore", SEMAPHORE_PERMITS));
    }

    /** Read/write lock acquisitions/s: 8 contenders, every fourth a writer. */
    static Measurement readWriteLock(RecipeSession.Factory factory, String cs, String root, Window window)
            throws Exception {
        String path = root + "/rwlock";
        return acquisitions(factory, cs, window, "rwlock", Integer.MAX_VALUE,
                (s, i) -> i % 4 == 0 ? s.writeLock(path) : s.readLock(path));
    }

    /**
     * Acquisitions/s: 8 contenders, each looping acquire/release on the lock {@code lockOf} gives contender i; the
     * round fails if more than {@code maxHolders} contenders hold at once.
     */
    private static Measurement acquisitions(RecipeSession.Factory factory, String cs, Window window, String name,
                                            int maxHolders,
                                            BiFunction<RecipeSession, Integer, RecipeSession.Lock> lockOf)
            throws Exception {
        AtomicInteger holders = new AtomicInteger();
        return withSessions(factory, cs, LOCK_CONTENDERS, sessions -> {
            Workers.run(name, LOCK_CONTENDERS, window, i -> {
                RecipeSession.Lock lock = lockOf.apply(sessions.get(i), i);
                while (!window.stopped()) {
                    RecipeSession.Held held = lock.acquire();
                    int now = holders.incrementAndGet();
                    if (now > maxHolders) {
                        throw new IllegalStateException(now + " holders at once, at most " + maxHolders + " allowed");
                    }
                    window.count();
                    holders.decrementAndGet();
                    held.release();
                }
            });
            return throughput(window);
        });
    }

    /** Counter increments/s: 8 contenders incrementing one counter. */
    static Measurement counter(RecipeSession.Factory factory, String cs, String root, Window window) throws Exception {
        return withSessions(factory, cs, LOCK_CONTENDERS, sessions -> {
            Workers.run("counter", LOCK_CONTENDERS, window, i -> {
                RecipeSession.Counter counter = sessions.get(i).counter(root + "/counter");
                while (!window.stopped()) {
                    counter.increment();
                    window.count();
                }
            });
            return throughput(window);
        });
    }

    /** Queue items/s consumed: 1 producer, 4 consumers, at most 100 items waiting in the queue. */
    static Measurement queue(RecipeSession.Factory factory, String cs, String root, Window window) throws Exception {
        return queue(factory, cs, root, window, RecipeSession::queue);
    }

    /** As {@link #queue}, through a priority queue (priorities 0 to 9 in turn). */
    static Measurement priorityQueue(RecipeSession.Factory factory, String cs, String root, Window window)
            throws Exception {
        return queue(factory, cs, root, window, RecipeSession::priorityQueue);
    }

    private static Measurement queue(RecipeSession.Factory factory, String cs, String root, Window window,
                                     java.util.function.BiFunction<RecipeSession, String, RecipeSession.Queue> kind)
            throws Exception {
        return withSessions(factory, cs, 1 + QUEUE_CONSUMERS, sessions -> {
            Semaphore backlog = new Semaphore(QUEUE_BACKLOG);
            byte[] item = ServerScenarios.payload();
            Workers.run("queue", 1 + QUEUE_CONSUMERS, window, i -> {
                RecipeSession.Queue queue = kind.apply(sessions.get(i), root + "/queue");
                if (i == 0) {
                    while (!window.stopped()) {
                        if (backlog.tryAcquire(100, TimeUnit.MILLISECONDS)) {
                            queue.offer(item);
                        }
                    }
                } else {
                    while (!window.stopped()) {
                        if (queue.poll(Duration.ofMillis(200)) != null) {
                            backlog.release();
                            window.count();
                        }
                    }
                }
            });
            return throughput(window);
        });
    }

    /**
     * Election handover: 5 participants; the leader closes its latch and the time until the next participant is told
     * it leads is one sample; the old leader then rejoins at the back.
     */
    static Measurement election(RecipeSession.Factory factory, String cs, String root, Window window)
            throws Exception {
        return withSessions(factory, cs, ELECTION_PARTICIPANTS, sessions -> {
            String path = root + "/leader";
            Latencies latencies = new Latencies();
            BlockingQueue<long[]> elected = new LinkedBlockingQueue<>();
            RecipeSession.Participant[] participants = new RecipeSession.Participant[ELECTION_PARTICIPANTS];
            try {
                for (int i = 0; i < ELECTION_PARTICIPANTS; i++) {
                    participants[i] = join(sessions.get(i), path, i, elected);
                }
                Workers.run("election", 1, window, unused -> {
                    long[] leader = next(elected);
                    while (!window.stopped()) {
                        int li = (int) leader[0];
                        long t0 = System.nanoTime();
                        participants[li].close();
                        participants[li] = null;
                        long[] successor = next(elected);
                        if (window.measuring()) {
                            latencies.record(successor[1] - t0);
                        }
                        participants[li] = join(sessions.get(li), path, li, elected);
                        leader = successor;
                    }
                });
            } finally {
                for (RecipeSession.Participant p : participants) {
                    if (p != null) {
                        p.close();
                    }
                }
            }
            return p50(window, latencies);
        });
    }

    /**
     * Leader selector handover: 5 participants in a fair selector with auto requeue; the leader's term is ended (its
     * callback returns) and the time until the next participant's callback starts is one sample.
     */
    static Measurement selector(RecipeSession.Factory factory, String cs, String root, Window window)
            throws Exception {
        return withSessions(factory, cs, ELECTION_PARTICIPANTS, sessions -> {
            String path = root + "/selector";
            Latencies latencies = new Latencies();
            BlockingQueue<Object[]> terms = new LinkedBlockingQueue<>();
            List<RecipeSession.Participant> participants = new java.util.ArrayList<>();
            try {
                for (int i = 0; i < ELECTION_PARTICIPANTS; i++) {
                    participants.add(sessions.get(i).selector(path, "p" + i,
                            term -> terms.add(new Object[] {term, System.nanoTime()})));
                }
                Workers.run("selector", 1, window, unused -> {
                    Object[] term = nextTerm(terms);
                    while (!window.stopped()) {
                        long t0 = System.nanoTime();
                        ((RecipeSession.Term) term[0]).end();
                        Object[] next = nextTerm(terms);
                        if (window.measuring()) {
                            latencies.record((long) next[1] - t0);
                        }
                        term = next;
                    }
                    ((RecipeSession.Term) term[0]).end();
                });
            } finally {
                for (RecipeSession.Participant p : participants) {
                    p.close();
                }
            }
            return p50(window, latencies);
        });
    }

    private static Object[] nextTerm(BlockingQueue<Object[]> terms) throws InterruptedException {
        Object[] t = terms.poll(RecipeSession.TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        if (t == null) {
            throw new IllegalStateException("no term started within " + RecipeSession.TIMEOUT);
        }
        return t;
    }

    private static RecipeSession.Participant join(RecipeSession s, String path, int i, BlockingQueue<long[]> elected)
            throws Exception {
        return s.join(path, "p" + i, () -> elected.add(new long[] {i, System.nanoTime()}));
    }

    private static long[] next(BlockingQueue<long[]> elected) throws InterruptedException {
        long[] e = elected.poll(RecipeSession.TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        if (e == null) {
            throw new IllegalStateException("no leader elected within " + RecipeSession.TIMEOUT);
        }
        return e;
    }

    /**
     * Double barrier: 10 parties start each round together (a local barrier), each one's enter + leave time is a
     * sample. Every round uses a fresh barrier path.
     */
    static Measurement doubleBarrier(RecipeSession.Factory factory, String cs, String root, Window window)
            throws Exception {
        return withSessions(factory, cs, BARRIER_PARTIES, sessions -> {
            Latencies latencies = new Latencies();
            int[] round = {0};
            boolean[] go = {true};
            CyclicBarrier start = new CyclicBarrier(BARRIER_PARTIES, () -> {
                go[0] = !window.stopped();
                round[0]++;
            });
            Workers.run("barrier", BARRIER_PARTIES, window, i -> {
                try {
                    while (true) {
                        start.await(2 * RecipeSession.TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
                        if (!go[0]) {
                            return;
                        }
                        String path = root + "/barrier/r" + round[0];
                        RecipeSession.Barrier barrier = sessions.get(i).doubleBarrier(path, BARRIER_PARTIES, "m" + i);
                        boolean measured = window.measuring();
                        long t0 = System.nanoTime();
                        barrier.enter();
                        barrier.leave();
                        if (measured && window.measuring()) {
                            latencies.record(System.nanoTime() - t0);
                        }
                    }
                } catch (BrokenBarrierException stoppedByOther) {
                    if (window.failure() == null) {
                        throw stoppedByOther;
                    }
                } catch (Exception e) {
                    start.reset();
                    throw e;
                }
            });
            return p50(window, latencies);
        });
    }

    private static Measurement throughput(Window window) {
        return window.failure() != null ? Measurement.failed(ServerScenarios.describe(window.failure()))
                : Measurement.of(window.throughput());
    }

    static Measurement p50(Window window, Latencies latencies) {
        if (window.failure() != null) {
            return Measurement.failed(ServerScenarios.describe(window.failure()));
        }
        if (latencies.count() == 0) {
            return Measurement.failed("no sample in the window");
        }
        return Measurement.of(latencies.percentileMillis(50));
    }

    /** The scenario body, given its open sessions. */
    @FunctionalInterface
    interface Body<T> {
        T run(List<RecipeSession> sessions) throws Exception;
    }

    /** Opens {@code n} sessions, runs the body with them and closes them. */
    static <T> T withSessions(RecipeSession.Factory factory, String cs, int n, Body<T> body)
            throws Exception {
        List<RecipeSession> sessions = new ArrayList<>();
        try {
            for (int i = 0; i < n; i++) {
                sessions.add(factory.open(cs));
            }
            return body.run(sessions);
        } finally {
            for (RecipeSession s : sessions) {
                try {
                    s.close();
                } catch (RuntimeException ignored) {
                    // best effort: the server is killed after the scenario anyway
                }
            }
        }
    }
}
