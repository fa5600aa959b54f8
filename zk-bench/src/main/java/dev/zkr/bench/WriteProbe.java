package dev.zkr.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * One client writing without pause through one server: blocking {@code setData} of 100 B in a loop on its own
 * thread, retried 1 ms after a failure (connection loss while the ensemble has no leader). Tells when the first
 * write issued after a given instant was acknowledged.
 */
final class WriteProbe implements AutoCloseable {

    private final KvClient client;
    private final String path;
    private final Thread thread;
    private final List<long[]> acks = new ArrayList<>(); // {issued, acknowledged} nanos, newest last
    private volatile boolean closed;
    private long failures;
    private String lastFailure;

    /** Connects, creates {@code path} and starts writing. */
    WriteProbe(ServerFlavor flavor, String connectString, String path) {
        this.client = flavor.connect(connectString, ServerScenarios.CONNECT);
        this.path = path;
        client.ensurePath(path, new byte[0]);
        this.thread = new Thread(this::loop, "write-probe");
        thread.setDaemon(true);
        thread.start();
    }

    private void loop() {
        byte[] data = ServerScenarios.payload();
        while (!closed) {
            long issued = System.nanoTime();
            try {
                client.setData(path, data);
                long done = System.nanoTime();
                synchronized (this) {
                    if (acks.size() > 10_000) {
                        acks.subList(0, 5_000).clear();
                    }
                    acks.add(new long[] {issued, done});
                    notifyAll();
                }
            } catch (RuntimeException e) {
                synchronized (this) {
                    failures++;
                    lastFailure = ServerScenarios.describe(e);
                }
                if (!closed) {
                    ServerProcess.pause(1);
                }
            }
        }
    }

    /** Waits until {@code n} writes have been acknowledged in total (the probe is warm). */
    synchronized void awaitAcks(int n, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (acks.size() < n) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                throw new IllegalStateException("the write probe got " + acks.size() + " of " + n + " writes through "
                        + "within " + timeout + (lastFailure == null ? "" : "; last failure: " + lastFailure));
            }
            wait(Math.max(1, left / 1_000_000));
        }
    }

    /** The acknowledgement time of the first write issued at or after {@code nanos}; fails after the timeout. */
    synchronized long firstAckIssuedAfter(long nanos, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            for (long[] a : acks) {
                if (a[0] >= nanos) {
                    return a[1];
                }
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                throw new IllegalStateException("no write acknowledged within " + timeout + " after the fault ("
                        + failures + " failed attempts" + (lastFailure == null ? "" : ", last: " + lastFailure) + ")");
            }
            wait(Math.max(1, left / 1_000_000));
        }
    }

    @Override
    public void close() {
        closed = true;
        client.close();
        try {
            thread.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
