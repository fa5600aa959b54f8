package dev.zkr.server;

import dev.zkr.client.CreateMode;
import dev.zkr.wire.Message;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntFunction;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Rough server throughput with raw pipelined clients (4 × 200 in flight): run with {@code -Dzkr.perf=true}.
 * The real comparison with ZooKeeper is zk-bench's job.
 */
@EnabledIfSystemProperty(named = "zkr.perf", matches = "true")
class ThroughputCheck {

    @TempDir
    Path dir;

    @Test
    void createsAndReads() throws Exception {
        String external = System.getProperty("zkr.perf.port");
        try (ZkServer server = external != null ? null : ZkServer.start(ServerConfig.builder(dir).port(0).build())) {
            int port = external != null ? Integer.parseInt(external) : server.port();
            byte[] data = new byte[100];
            String run = Long.toString(System.nanoTime() % 100000);
            run(port, "creates", 40_000, (c, i) -> x -> new Message.CreateRequest(x, "/n-" + run + "-" + c + "-" + i, data,
                    CreateMode.PERSISTENT));
            run(port, "reads", 200_000, (c, i) -> x -> new Message.GetDataRequest(x, "/n-" + run + "-" + c + "-" + (i % 1000),
                    false));
            setDataLatency(port, "/n-" + run + "-0-0", data, 3_000);
        }
    }

    /** One client, one setData at a time: the latency of a lone write (p50, p99). */
    private static void setDataLatency(int port, String path, byte[] data, int n) {
        long[] micros = new long[n];
        try (RawClient rc = RawClient.session(port, 30_000)) {
            for (int i = 0; i < n; i++) {
                long t0 = System.nanoTime();
                Message.Reply r = rc.call(x -> new Message.SetDataRequest(x, path, data, -1));
                micros[i] = (System.nanoTime() - t0) / 1_000;
                assertEquals(0, r.code());
            }
        }
        java.util.Arrays.sort(micros);
        System.out.printf("setData latency: p50 %d us, p99 %d us (%d sequential)%n", micros[n / 2],
                micros[n * 99 / 100], n);
    }

    interface Gen {
        IntFunction<Message.Request> make(int client, int i);
    }

    private static void run(int port, String what, int total, Gen gen) throws Exception {
        int clients = 4;
        int perClient = total / clients;
        AtomicLong errors = new AtomicLong();
        List<Thread> threads = new ArrayList<>();
        long t0 = System.nanoTime();
        for (int c = 0; c < clients; c++) {
            int cid = c;
            RawClient rc = RawClient.session(port, 30_000);
            Semaphore window = new Semaphore(200);
            Thread reader = new Thread(() -> {
                for (int i = 0; i < perClient; i++) {
                    Message m = rc.receive();
                    if (m instanceof Message.Reply r && r.code() != 0) {
                        errors.incrementAndGet();
                    }
                    window.release();
                }
                rc.close();
            });
            Thread writer = new Thread(() -> {
                for (int i = 0; i < perClient; i++) {
                    window.acquireUninterruptibly();
                    rc.send(gen.make(cid, i).apply(rc.nextXid()));
                }
            });
            threads.add(reader);
            threads.add(writer);
            reader.start();
            writer.start();
        }
        for (Thread t : threads) {
            t.join();
        }
        double secs = (System.nanoTime() - t0) / 1e9;
        System.out.printf("%s: %d in %.2f s = %.0f/s%n", what, total, secs, total / secs);
        assertEquals(0, errors.get());
    }
}
