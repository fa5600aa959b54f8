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

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** SimpleBarrier: waiters return when the node goes (removed, or its owner's session ends), false on timeout. */
public abstract class SimpleBarrierSuite extends RecipeSuite {

    @Test
    void waitersReturnWhenTheBarrierIsRemoved() throws Exception {
        String p = path("gate");
        SimpleBarrier owner = Recipes.using(client()).barrier(p);
        assertTrue(owner.setBarrier());
        assertFalse(owner.setBarrier(), "set already");
        List<ZkClient> waiterClients = new ArrayList<>();
        List<Future<Boolean>> waiters = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            ZkClient c = client();
            waiterClients.add(c);
            SimpleBarrier b = Recipes.using(c).barrier(p);
            waiters.add(pool.submit(() -> b.waitOnBarrier(WAIT)));
        }
        eventually("every waiter watches the barrier", () -> waiterClients.stream()
                .allMatch(c -> c.watchedPaths().contains(p)));
        assertTrue(waiters.stream().noneMatch(Future::isDone), "nobody passes a set barrier");
        owner.removeBarrier();
        for (Future<Boolean> f : waiters) {
            assertTrue(f.get(20, TimeUnit.SECONDS));
        }
        for (ZkClient c : waiterClients) {
            assertNoWatches(c);
        }
        owner.removeBarrier(); // not set: no-op
    }

    @Test
    void noBarrierMeansNoWaitAndATimeoutReturnsFalse() {
        String p = path("timeout");
        ZkClient c = client();
        SimpleBarrier b = Recipes.using(c).barrier(p);
        assertTrue(b.waitOnBarrier(Duration.ZERO), "not set: passes at once");
        b.setBarrier();
        assertFalse(b.waitOnBarrier(Duration.ofMillis(200)));
        assertNoWatches(c);
        b.removeBarrier();
        assertTrue(b.waitOnBarrier(Duration.ZERO));
    }

    @Test
    void anEphemeralBarrierFallsWhenItsOwnersSessionEnds() throws Exception {
        String p = path("ephemeral");
        ZkClient ownerClient = client();
        SimpleBarrier owner = Recipes.using(ownerClient).barrier(p);
        assertTrue(owner.setEphemeralBarrier());
        Future<Boolean> waiter = pool.submit(() -> Recipes.using(client()).barrier(p).waitOnBarrier(WAIT));
        assertFalse(Recipes.using(client()).barrier(p).waitOnBarrier(Duration.ofMillis(100)));
        backend.expireSession(ownerClient);
        assertTrue(waiter.get(20, TimeUnit.SECONDS), "the owner's session ended: the barrier fell");
        owner.close();
    }

    @Test
    void closingTheOwnerRemovesItsEphemeralBarrierAndEndsItsWaits() throws Exception {
        String p = path("close");
        SimpleBarrier owner = Recipes.using(client()).barrier(p);
        owner.setEphemeralBarrier();
        ZkClient otherClient = client();
        SimpleBarrier other = Recipes.using(otherClient).barrier(p);
        Future<Boolean> waiting = pool.submit(() -> other.waitOnBarrier(WAIT));
        ZkClient closingClient = client();
        SimpleBarrier closing = Recipes.using(closingClient).barrier(p);
        Future<Boolean> closed = pool.submit(() -> closing.waitOnBarrier(WAIT));
        eventually("both wait", () -> otherClient.watchedPaths().contains(p)
                && closingClient.watchedPaths().contains(p));
        closing.close();
        assertFalse(closed.get(20, TimeUnit.SECONDS), "close ends the wait with false");
        owner.close();
        assertTrue(waiting.get(20, TimeUnit.SECONDS), "the owner's close removed its barrier");
        assertThrows(IllegalStateException.class, closing::waitOnBarrier);
    }

    @Test
    void anInterruptEndsTheWaitWithoutAWatchLeft() throws Exception {
        String p = path("interrupt");
        Recipes.using(client()).barrier(p).setBarrier();
        ZkClient c = client();
        CompletableFuture<Throwable> outcome = new CompletableFuture<>();
        Thread t = new Thread(() -> {
            try {
                Recipes.using(c).barrier(p).waitOnBarrier();
                outcome.complete(null);
            } catch (Throwable e) {
                outcome.complete(e);
            }
        });
        t.start();
        eventually("waiting", () -> c.watchedPaths().contains(p));
        t.interrupt();
        assertTrue(outcome.get(10, TimeUnit.SECONDS) instanceof ZkException.Interrupted);
        assertNoWatches(c);
    }

    @Test
    void aWaitSurvivesAServerRestart() throws Exception {
        String p = path("restart");
        SimpleBarrier owner = Recipes.using(client(Duration.ofSeconds(30))).barrier(p);
        owner.setBarrier();
        Future<Boolean> waiter = pool.submit(() -> Recipes.using(client(Duration.ofSeconds(30))).barrier(p)
                .waitOnBarrier(WAIT));
        backend.restartServer();
        assertFalse(waiter.isDone(), "still set after the restart");
        owner.removeBarrier();
        assertTrue(waiter.get(20, TimeUnit.SECONDS));
    }

    // ---- waitOnBarrierAsync: no thread waits ------------------------------------------------------------------------

    /** Many asynchronous waiters through one client hold no thread each, and all go when the barrier is removed. */
    @Test
    void asyncWaitersHoldNoThreadAndGoWhenRemoved() throws Exception {
        String p = path("async");
        SimpleBarrier owner = Recipes.using(client()).barrier(p);
        owner.setBarrier();
        ZkClient c = client();
        SimpleBarrier waiterBarrier = Recipes.using(c).barrier(p);
        int threadsBefore = java.lang.management.ManagementFactory.getThreadMXBean().getThreadCount();
        List<CompletableFuture<Void>> waiters = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            waiters.add(waiterBarrier.waitOnBarrierAsync());
        }
        eventually("watches set", () -> c.watchedPaths().contains(p));
        assertTrue(java.lang.management.ManagementFactory.getThreadMXBean().getThreadCount() <= threadsBefore + 2,
                "no thread per waiter");
        assertFalse(waiters.stream().anyMatch(CompletableFuture::isDone), "nobody passes a set barrier");
        owner.removeBarrier();
        CompletableFuture.allOf(waiters.toArray(CompletableFuture[]::new)).get(WAIT.toSeconds(), TimeUnit.SECONDS);
        assertNoWatches(c);
        assertTrue(waiterBarrier.waitOnBarrierAsync(WAIT).get(WAIT.toSeconds(), TimeUnit.SECONDS), "not set: at once");
    }

    /** Timeout gives false, cancel stops waiting; neither leaves a watch; closing the barrier ends the waits. */
    @Test
    void asyncWaitTimesOutIsCancelledAndEndsOnClose() throws Exception {
        String p = path("async-give-up");
        Recipes.using(client()).barrier(p).setBarrier();
        ZkClient c = client();
        SimpleBarrier b = Recipes.using(c).barrier(p);
        assertFalse(b.waitOnBarrierAsync(Duration.ofMillis(100)).get(WAIT.toSeconds(), TimeUnit.SECONDS));
        assertNoWatches(c);
        CompletableFuture<Void> cancelled = b.waitOnBarrierAsync();
        eventually("watch set", () -> c.watchedPaths().contains(p));
        cancelled.cancel(false);
        assertNoWatches(c);
        CompletableFuture<Void> untimed = b.waitOnBarrierAsync();
        CompletableFuture<Boolean> timed = b.waitOnBarrierAsync(WAIT);
        b.close();
        java.util.concurrent.ExecutionException e = assertThrows(java.util.concurrent.ExecutionException.class,
                () -> untimed.get(WAIT.toSeconds(), TimeUnit.SECONDS));
        assertTrue(e.getCause() instanceof IllegalStateException, String.valueOf(e.getCause()));
        assertFalse(timed.get(WAIT.toSeconds(), TimeUnit.SECONDS));
        assertNoWatches(c);
        assertThrows(IllegalStateException.class, b::waitOnBarrierAsync);
    }

    /** An asynchronous wait goes on across a server restart and a session expiry; a closed client fails it. */
    @Test
    void asyncWaitSurvivesRestartAndExpiry() throws Exception {
        String p = path("async-restart");
        SimpleBarrier owner = Recipes.using(client(Duration.ofSeconds(30))).barrier(p);
        owner.setBarrier();
        ZkClient c = client(Duration.ofSeconds(30));
        CompletableFuture<Void> waiter = Recipes.using(c).barrier(p).waitOnBarrierAsync();
        eventually("watch set", () -> c.watchedPaths().contains(p));
        backend.restartServer();
        backend.expireSession(c);
        eventually("watch set again", () -> c.state().isConnected() && c.watchedPaths().contains(p));
        assertFalse(waiter.isDone(), "still set after the restart and the expiry");
        owner.removeBarrier();
        waiter.get(WAIT.toSeconds(), TimeUnit.SECONDS);
        ZkClient d = client();
        owner.setBarrier();
        CompletableFuture<Void> orphan = Recipes.using(d).barrier(p).waitOnBarrierAsync();
        eventually("watch set", () -> d.watchedPaths().contains(p));
        d.close();
        java.util.concurrent.ExecutionException e = assertThrows(java.util.concurrent.ExecutionException.class,
                () -> orphan.get(WAIT.toSeconds(), TimeUnit.SECONDS));
        assertTrue(e.getCause() instanceof ZkException.Closed, String.valueOf(e.getCause()));
    }
}
