package dev.zkr.server.port;

import dev.zkr.wire.Message;

/**
 * One connection's requests in flight, timed: each request's operation and arrival time in a ring, in order (replies
 * leave in request order), so a reply is timed without any lookup or allocation; every latency goes to the server's
 * {@link LatencyStats} (the four-letter words'), and to the request metrics when the server keeps them. Event loop
 * only.
 */
final class RequestTimer {

    /** The server's metrics, or null when it keeps none. */
    private final RequestMetrics metrics;
    private final LatencyStats latency;
    // grown on demand: most connections have a few requests in flight (per-session memory, issue 31)
    private int[] ops = new int[4];
    private long[] starts = new long[4];
    private int head;
    private int size;

    RequestTimer(RequestMetrics metrics, LatencyStats latency) {
        this.metrics = metrics;
        this.latency = latency;
    }

    /** A request was read at {@code now} (nanoTime: when its socket read arrived). */
    void received(Message.Request r, long now) {
        if (size == ops.length) {
            grow();
        }
        int i = (head + size) & (ops.length - 1);
        ops[i] = metrics == null ? 0 : metrics.op(r);
        starts[i] = now;
        size++;
    }

    /** The next {@code replies} requests were answered (their replies written) at {@code now}. */
    void replied(int replies, long now) {
        for (int k = 0; k < replies && size > 0; k++) {
            long nanos = now - starts[head];
            latency.record(nanos);
            if (metrics != null) {
                metrics.replied(ops[head], nanos);
            }
            head = (head + 1) & (ops.length - 1);
            size--;
        }
    }

    /** The connection closed: its requests in flight will not be answered. */
    void closed() {
        size = 0;
    }

    private void grow() {
        int[] o = new int[ops.length * 2];
        long[] s = new long[o.length];
        for (int k = 0; k < size; k++) {
            int i = (head + k) & (ops.length - 1);
            o[k] = ops[i];
            s[k] = starts[i];
        }
        ops = o;
        starts = s;
        head = 0;
    }
}
