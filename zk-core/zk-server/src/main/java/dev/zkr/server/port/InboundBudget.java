package dev.zkr.server.port;

import dev.zkr.server.ServerConfig;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The server-wide count of inbound bytes held for connections — read from their sockets and not yet answered
 * (partial frames and requests in flight) — against {@link ServerConfig#maxInboundBytesTotal()}. While the total is
 * over the limit, connections that hold inbound bytes stop reading; they wait here and are woken once releases
 * bring the total back within the limit. Each connection adds and releases only its own bytes, from its event loop.
 */
final class InboundBudget {

    private final long limit;
    private final AtomicLong held = new AtomicLong();
    private final AtomicLong peak = new AtomicLong();
    private final ConcurrentLinkedQueue<Runnable> waiting = new ConcurrentLinkedQueue<>();

    InboundBudget(long limit) {
        this.limit = limit;
    }

    /** Counts bytes read by a connection. */
    void add(long bytes) {
        long total = held.addAndGet(bytes);
        peak.accumulateAndGet(total, Math::max);
    }

    /** Releases bytes a connection held; wakes the waiting connections once the total is within the limit. */
    void release(long bytes) {
        if (bytes != 0 && held.addAndGet(-bytes) <= limit) {
            wakeAll();
        }
    }

    /** True while the total is over the limit. */
    boolean over() {
        return held.get() > limit;
    }

    /** Runs {@code resume} once the total is within the limit (at once if it already is). */
    void await(Runnable resume) {
        waiting.add(resume);
        if (!over()) {
            wakeAll();
        }
    }

    private void wakeAll() {
        Runnable r;
        while ((r = waiting.poll()) != null) {
            r.run();
        }
    }

    /** Connections waiting for the total to be within the limit. */
    int waiting() {
        return waiting.size();
    }

    /** The highest total so far. */
    long peak() {
        return peak.get();
    }

    long held() {
        return held.get();
    }

    long limit() {
        return limit;
    }
}
