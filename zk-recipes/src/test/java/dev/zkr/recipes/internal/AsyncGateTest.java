package dev.zkr.recipes.internal;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** AsyncGate: never more than its permits in flight, calls sent in order, and no recursion on calls that fail at once. */
class AsyncGateTest {

    @Test
    void atMostThePermitsAreInFlightAndCallsGoInOrder() {
        AsyncGate gate = new AsyncGate(3);
        List<CompletableFuture<Integer>> sent = new ArrayList<>();
        List<Integer> order = new ArrayList<>();
        AtomicInteger inFlight = new AtomicInteger();
        AtomicInteger most = new AtomicInteger();
        List<CompletableFuture<Integer>> results = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            int n = i;
            results.add(gate.submit(() -> {
                order.add(n);
                most.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
                CompletableFuture<Integer> f = new CompletableFuture<>();
                sent.add(f);
                return f;
            }));
        }
        assertEquals(3, sent.size(), "only the permits went out");
        for (int i = 0; i < 20; i++) {
            inFlight.decrementAndGet();
            sent.get(i).complete(i); // each answer lets the next call out
        }
        for (int i = 0; i < 20; i++) {
            assertEquals(i, results.get(i).join());
        }
        assertEquals(3, most.get());
        for (int i = 0; i < 20; i++) {
            assertEquals(i, order.get(i));
        }
    }

    @Test
    void manyCallsThatFailAtOnceDoNotRecurse() {
        AsyncGate gate = new AsyncGate(1);
        CompletableFuture<Void> blocker = new CompletableFuture<>();
        gate.submit(() -> blocker);
        List<CompletableFuture<Object>> failing = new ArrayList<>();
        for (int i = 0; i < 100_000; i++) {
            failing.add(gate.submit(() -> CompletableFuture.failedFuture(new IllegalStateException("closed"))));
        }
        blocker.complete(null); // the queue drains in a loop: a stack overflow would fail this test
        for (CompletableFuture<Object> f : failing) {
            assertTrue(f.isCompletedExceptionally());
            Throwable cause = f.handle((v, e) -> e).join();
            assertTrue(cause instanceof IllegalStateException, "failed with its own error, not " + cause);
        }
    }
}
