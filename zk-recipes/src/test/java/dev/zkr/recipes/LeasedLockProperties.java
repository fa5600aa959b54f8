package dev.zkr.recipes;

import dev.zkr.client.ZkClient;
import dev.zkr.client.ZkException;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterProperty;
import net.jqwik.api.lifecycle.AfterTry;
import net.jqwik.api.lifecycle.BeforeProperty;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The leased lock with stalled holders: generated steps of three participants ({@code ACQUIRE} without a thread,
 * {@code RENEW}, {@code STALL} — the holder stops renewing until its lease runs out, and whoever waits takes over —,
 * {@code RELEASE} (or cancel), {@code LOSE} — the participant's next setData answer (a renewal or a takeover probe)
 * is lost —, {@code CRASH}, {@code EXPIRE}, {@code RESTART}). Safety, checked after every step and at the end: the
 * holders' beliefs never overlap — each lease believed from when its first renewal was answered until its lease
 * ran out (as the lease itself computes it, at {@code isValid()}), its release began, or its process died or its
 * session was expired by force (a real expiry follows a suspension, which ends the belief at once) — and fencing
 * tokens increase in the order of belief; at most one {@code isValid()} at any look. Liveness: a stalled holder's
 * waiter takes over, and at the end every waiting acquire gets the lock in turn and the lock's nodes are gone.
 * Run by {@code ZkrLeasedLockPropertiesTest} and zk-apache's {@code ApacheLeasedLockPropertiesTest}.
 */
public abstract class LeasedLockProperties {

    private static final Duration LEASE = Duration.ofMillis(150);
    private static final Duration SETTLE = Duration.ofSeconds(20);
    private static final AtomicLong PATHS = new AtomicLong();

    private RecipeBackend backend;
    private final List<ZkClient> clients = Collections.synchronizedList(new ArrayList<>());

    protected abstract RecipeBackend createBackend();

    @BeforeProperty
    void start() {
        backend = createBackend();
    }

    @AfterTry
    void closeClients() {
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

    @AfterProperty
    void stop() {
        backend.close();
    }

    enum Kind { ACQUIRE, RENEW, STALL, RELEASE, LOSE, CRASH, EXPIRE, RESTART }

    record Step(Kind kind, int who) {
    }

    /** One lease as it was believed: cut is when its process died or its session was expired by force. */
    private record Belief(TimedNodeLease lease, AtomicLong cut) {
        long end() {
            return Math.min(lease.believedUntilNanos(), cut.get());
        }
    }

    private final class User {
        final Participant proc;
        final LostResponseClient client;
        final LeasedLock lock;
        CompletableFuture<TimedLease> pending;

        User(Participant proc, String path) {
            this.proc = proc;
            this.client = new LostResponseClient(proc.client());
            this.lock = Recipes.using(client).leasedLock(path).lease(LEASE).build();
        }

        TimedNodeLease held() {
            return pending != null && pending.isDone() && !pending.isCompletedExceptionally()
                    ? (TimedNodeLease) pending.join() : null;
        }
    }

    @Provide
    Arbitrary<List<Step>> steps() {
        Arbitrary<Kind> kind = Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(5, Arbitraries.just(Kind.ACQUIRE)),
                net.jqwik.api.Tuple.of(3, Arbitraries.just(Kind.RENEW)),
                net.jqwik.api.Tuple.of(3, Arbitraries.just(Kind.STALL)),
                net.jqwik.api.Tuple.of(2, Arbitraries.just(Kind.RELEASE)),
                net.jqwik.api.Tuple.of(1, Arbitraries.just(Kind.LOSE)),
                net.jqwik.api.Tuple.of(1, Arbitraries.just(Kind.CRASH)),
                net.jqwik.api.Tuple.of(1, Arbitraries.just(Kind.EXPIRE)),
                net.jqwik.api.Tuple.of(1, Arbitraries.just(Kind.RESTART)));
        return Combinators.combine(kind, Arbitraries.integers().between(0, 2)).as(Step::new)
                .list().ofMinSize(1).ofMaxSize(10);
    }

    /** 8 tries at the default budget (a stall costs a lease, a restart more); 160 under {@code -Plong}. */
    @Property
    @ScaledTries(8)
    void leasedHoldersNeverBelieveAtOnce(@ForAll("steps") List<Step> steps) throws Exception {
        String p = "/prop-leased-" + PATHS.incrementAndGet();
        ZkClient observer = newClient();
        List<User> users = new ArrayList<>();
        List<Belief> beliefs = Collections.synchronizedList(new ArrayList<>());
        for (int i = 0; i < 3; i++) {
            users.add(new User(participant("p" + i), p));
        }
        for (Step s : steps) {
            User u = users.get(s.who());
            switch (s.kind()) {
                case ACQUIRE -> {
                    if (u.pending == null) {
                        AtomicLong cut = new AtomicLong(Long.MAX_VALUE);
                        u.pending = u.lock.acquireAsync();
                        u.pending.thenAccept(l -> beliefs.add(new Belief((TimedNodeLease) l, cut)));
                        cuts.put(u.pending, cut);
                    }
                }
                case RENEW -> {
                    TimedNodeLease l = u.held();
                    if (l != null) {
                        l.renew(); // true or false: a lost answer, or taken over meanwhile
                    }
                }
                case STALL -> {
                    TimedNodeLease l = u.held();
                    if (l != null && l.state() == LeaseState.HELD) {
                        CountDownLatch over = new CountDownLatch(1);
                        l.addStateListener((x, st) -> {
                            if (st != LeaseState.HELD) {
                                over.countDown();
                            }
                        }, null);
                        if (l.state() == LeaseState.HELD) {
                            assertTrue(over.await(SETTLE.toSeconds(), TimeUnit.SECONDS), "the lease runs out");
                        }
                        boolean othersWait = users.stream().anyMatch(o -> o != u && o.pending != null);
                        if (othersWait) {
                            settle("a waiter takes over from the stalled " + u.proc, users, beliefs,
                                    () -> users.stream().anyMatch(o -> o != u && o.held() != null));
                        }
                    }
                }
                case RELEASE -> release(u);
                case LOSE -> u.client.loseSetData(1);
                case CRASH -> {
                    cut(u);
                    u.proc.crash(backend);
                    users.set(s.who(), new User(participant(u.proc.name()), p));
                }
                case EXPIRE -> {
                    cut(u);
                    long old = u.proc.sessionId();
                    backend.expireSession(u.proc.client());
                    settle("a new session for " + u.proc, users, beliefs,
                            () -> u.proc.sessionId() != old && u.proc.isConnected());
                    if (u.held() != null) {
                        u.held().close(); // it knows it lost; a new acquire may follow
                        u.pending = null;
                    }
                }
                case RESTART -> backend.restartServer();
                default -> throw new IllegalStateException(s.toString());
            }
            check(users, beliefs);
        }
        // the end: every holder releases, every waiter gets the lock in turn (and releases), nothing is left
        for (User u : users) {
            if (u.pending != null && !u.pending.isDone()) {
                u.pending.thenAccept(TimedLease::close);
            }
        }
        for (User u : users) {
            if (u.held() != null) {
                u.held().close();
            }
        }
        settle("every waiter held and released, no node left", users, beliefs,
                () -> users.stream().allMatch(u -> u.pending == null || u.pending.isDone())
                        && children(observer, p).isEmpty());
        check(users, beliefs);
    }

    private final java.util.Map<CompletableFuture<TimedLease>, AtomicLong> cuts =
            new java.util.concurrent.ConcurrentHashMap<>();

    /** The user's belief ends now, whatever its lease says (a dead process, a session expired by force). */
    private void cut(User u) {
        if (u.pending != null) {
            cuts.get(u.pending).accumulateAndGet(System.nanoTime(), Math::min);
        }
    }

    private static void release(User u) {
        if (u.pending == null) {
            return;
        }
        if (!u.pending.cancel(false) && !u.pending.isCompletedExceptionally()) {
            u.pending.join().close();
        }
        u.pending = null;
    }

    private static void check(List<User> users, List<Belief> beliefs) {
        long valid = users.stream().map(User::held).filter(l -> l != null && l.isValid()).count();
        assertTrue(valid <= 1, "at most one valid lease, have " + valid);
        List<Belief> sorted;
        synchronized (beliefs) {
            sorted = new ArrayList<>(beliefs);
        }
        sorted.sort(Comparator.comparingLong(b -> b.lease().heldSinceNanos()));
        for (int i = 1; i < sorted.size(); i++) {
            Belief prev = sorted.get(i - 1);
            Belief next = sorted.get(i);
            assertTrue(prev.end() < next.lease().heldSinceNanos(), "beliefs overlap: " + prev.lease() + " until "
                    + prev.end() + ", " + next.lease() + " from " + next.lease().heldSinceNanos());
            assertTrue(prev.lease().fencingToken() < next.lease().fencingToken(), "tokens increase");
        }
    }

    private static void settle(String what, List<User> users, List<Belief> beliefs, BooleanSupplier done) {
        long deadline = System.nanoTime() + SETTLE.toNanos();
        while (true) {
            check(users, beliefs);
            boolean ok;
            try {
                ok = done.getAsBoolean();
            } catch (ZkException e) {
                ok = false;
            }
            if (ok) {
                check(users, beliefs);
                return;
            }
            if (System.nanoTime() - deadline > 0) {
                fail("did not settle within " + SETTLE.toSeconds() + " s: " + what);
            }
            try {
                Thread.sleep(5); // polling with a deadline
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                fail("interrupted");
            }
        }
    }

    private ZkClient newClient() {
        ZkClient c = backend.newClient(Duration.ofSeconds(10));
        clients.add(c);
        return c;
    }

    private Participant participant(String name) {
        return new Participant(name, newClient());
    }

    private static List<String> children(ZkClient c, String path) {
        try {
            c.sync(path);
            return c.getChildren(path);
        } catch (ZkException.NoNode e) {
            return List.of();
        }
    }
}
