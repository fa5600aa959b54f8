package dev.zkr.recipes;

import dev.zkr.client.ZkClient;
import dev.zkr.client.ZkException;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** MultiLock: all or nothing, one global order (no deadlock), release of what was taken on timeout or failure. */
public abstract class MultiLockSuite extends RecipeSuite {

    @Test
    void holdsEveryLockAndReleasesThemAll() {
        ZkClient observer = client();
        ZkClient c = client();
        MultiLock multi = Recipes.using(c).multiLock(List.of(path("b"), path("a"), path("b")));
        assertEquals(List.of(path("a"), path("b")), multi.paths(), "sorted, without duplicates");
        LockLease all = multi.acquire();
        assertTrue(all.isValid());
        assertEquals(1, children(observer, path("a")).size());
        assertEquals(1, children(observer, path("b")).size());
        assertTrue(Recipes.using(client()).lock(path("a")).tryAcquire(Duration.ofMillis(100)).isEmpty());
        all.close();
        all.close(); // idempotent
        assertEquals(LeaseState.RELEASED, all.state());
        eventually("every node gone", () -> children(observer, path("a")).isEmpty()
                && children(observer, path("b")).isEmpty());
        assertNoWatches(c);
    }

    @Test
    void aTimeoutPartWayReleasesWhatItTook() {
        ZkClient observer = client();
        LockLease c = Recipes.using(client()).lock(path("c")).acquire();
        ZkClient waiter = client();
        MultiLock multi = Recipes.using(waiter).multiLock(List.of(path("a"), path("b"), path("c")));
        assertTrue(multi.tryAcquire(Duration.ofMillis(300)).isEmpty());
        assertTrue(children(observer, path("a")).isEmpty(), "a was taken, then released");
        assertTrue(children(observer, path("b")).isEmpty(), "b was taken, then released");
        assertEquals(1, children(observer, path("c")).size());
        assertNoWatches(waiter);
        c.close();
        multi.tryAcquire(WAIT).orElseThrow().close();
    }

    @Test
    void anInterruptPartWayReleasesWhatItTook() throws Exception {
        ZkClient observer = client();
        LockLease b = Recipes.using(client()).lock(path("b")).acquire();
        MultiLock multi = Recipes.using(client()).multiLock(List.of(path("a"), path("b")));
        CompletableFuture<Throwable> outcome = new CompletableFuture<>();
        Thread t = new Thread(() -> {
            try {
                multi.acquire();
                outcome.complete(null);
            } catch (Throwable e) {
                outcome.complete(e);
            }
        });
        t.start();
        eventually("waiting for b, holding a", () -> children(observer, path("a")).size() == 1
                && children(observer, path("b")).size() == 2);
        t.interrupt();
        Throwable thrown = outcome.get(10, TimeUnit.SECONDS);
        assertTrue(thrown instanceof ZkException.Interrupted, String.valueOf(thrown));
        eventually("a released, b's waiter gone", () -> children(observer, path("a")).isEmpty()
                && children(observer, path("b")).size() == 1);
        b.close();
    }

    @Test
    void oppositeOrdersNeverDeadlockAndOverlappingSetsExclude() throws Exception {
        String a = path("a");
        String b = path("b");
        String c = path("c");
        List<List<String>> sets = List.of(List.of(a, b), List.of(b, a), List.of(b, c), List.of(c, a));
        AtomicInteger[] inside = {new AtomicInteger(), new AtomicInteger(), new AtomicInteger()};
        List<Future<?>> workers = new ArrayList<>();
        List<Long> violations = new ArrayList<>();
        for (List<String> set : sets) {
            MultiLock multi = Recipes.using(client()).multiLock(set);
            workers.add(pool.submit(() -> {
                for (int i = 0; i < 5; i++) {
                    try (LockLease all = multi.acquire()) {
                        for (String p : set) {
                            if (inside[p.charAt(p.length() - 1) - 'a'].incrementAndGet() != 1) {
                                synchronized (violations) {
                                    violations.add(all.fencingToken());
                                }
                            }
                        }
                        for (String p : set) {
                            inside[p.charAt(p.length() - 1) - 'a'].decrementAndGet();
                        }
                    }
                }
                return null;
            }));
        }
        for (Future<?> f : workers) {
            f.get(60, TimeUnit.SECONDS); // a deadlock would time out here
        }
        assertEquals(List.of(), violations, "no two holders of one lock at once");
    }

    @Test
    void fencingTokenIncreasesAcrossHoldersOfTheSameSet() {
        List<String> set = List.of(path("a"), path("b"));
        LockLease first = Recipes.using(client()).multiLock(set).acquire();
        long token = first.fencingToken();
        first.close();
        LockLease second = Recipes.using(client()).multiLock(set).acquire();
        assertTrue(second.fencingToken() > token);
        second.close();
    }

    @Test
    void sessionExpiryLosesTheWholeLease() {
        ZkClient a = client();
        List<String> set = List.of(path("a"), path("b"));
        LockLease held = Recipes.using(a).multiLock(set).acquire();
        List<LeaseState> seen = new ArrayList<>();
        held.addStateListener((l, s) -> {
            synchronized (seen) {
                seen.add(s);
            }
        }, Runnable::run);
        backend.expireSession(a);
        LockLease other = Recipes.using(client()).multiLock(set).tryAcquire(WAIT).orElseThrow();
        eventually("A's lease is lost", () -> held.state() == LeaseState.LOST);
        assertFalse(held.isValid());
        eventually("LOST reported", () -> {
            synchronized (seen) {
                return seen.contains(LeaseState.LOST);
            }
        });
        held.close(); // harmless
        other.close();
    }

    @Test
    void invalidArgumentsFailBeforeAnyIo() {
        Recipes recipes = Recipes.using(client());
        assertThrows(IllegalArgumentException.class, () -> recipes.multiLock(List.of()));
        assertThrows(ZkException.InvalidPath.class, () -> recipes.multiLock(List.of("/ok", "bad")));
    }
}
