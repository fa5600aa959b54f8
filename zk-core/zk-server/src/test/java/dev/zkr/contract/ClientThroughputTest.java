package dev.zkr.contract;

import dev.zkr.client.CreateMode;
import dev.zkr.client.ZkClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Throughput of the native client against an in-process server: 4 clients with 200 async requests in flight each
 * (the benchmark's shape). Not a default test: run with {@code -Dzkr.perf=true}.
 */
@EnabledIfSystemProperty(named = "zkr.perf", matches = "true")
class ClientThroughputTest {

    @TempDir
    Path dir;

    @Test
    void asyncCreatesAndReads() throws Exception {
        try (TestServer server = TestServer.start(dir)) {
            List<ZkClient> clients = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                clients.add(server.client());
            }
            clients.get(0).create("/bench", null, CreateMode.PERSISTENT);
            clients.get(0).create("/read", new byte[100], CreateMode.PERSISTENT);
            for (int round = 0; round < 3; round++) {
                double creates = run(clients, c -> c.createAsync("/bench/n-", new byte[100],
                        CreateMode.PERSISTENT_SEQUENTIAL), 3_000);
                double reads = run(clients, c -> c.getDataAsync("/read", null), 3_000);
                System.out.printf("round %d: %.0f creates/s, %.0f reads/s%n", round, creates, reads);
            }
        }
    }

    private static double run(List<ZkClient> clients, java.util.function.Function<ZkClient, CompletableFuture<?>> op,
                              long millis) throws Exception {
        AtomicLong done = new AtomicLong();
        AtomicLong failed = new AtomicLong();
        long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        List<Thread> threads = new ArrayList<>();
        long start = System.nanoTime();
        for (ZkClient c : clients) {
            Thread t = new Thread(() -> {
                Semaphore inFlight = new Semaphore(200);
                while (System.nanoTime() < end) {
                    inFlight.acquireUninterruptibly();
                    op.apply(c).whenComplete((v, e) -> {
                        if (e != null) {
                            failed.incrementAndGet();
                        }
                        done.incrementAndGet();
                        inFlight.release();
                    });
                }
                inFlight.acquireUninterruptibly(200);
            });
            t.start();
            threads.add(t);
        }
        for (Thread t : threads) {
            t.join();
        }
        assertEquals(0, failed.get());
        return done.get() / ((System.nanoTime() - start) / 1e9);
    }
}
