package dev.zkr.server.port;

import dev.zkr.wire.Message;

/**
 * One connection's requests in flight, for the request metrics: each request's operation and arrival time in a ring,
 * in order (replies leave in request order), so a reply is timed without any lookup or allocation. Event loop only.
 */
final class RequestTimer {

    private final RequestMetrics metrics;
    private int[] ops = new int[16];
    private long[] starts = new long[16];
    private int head;
    private int size;

    RequestTimer(RequestMetrics metrics) {
        this.metrics = metrics;
    }

    /** A request was read at {@code now} (nanoTime: when its socket read arrived). */
    void received(Message.Request r, long now) {
        if (size == ops.length) {
            grow();
        }
        int i = (head + size) & (ops.length - 1);
        ops[i] = metrics.op(r);
        starts[i] = now;
        size++;
    }

    /** The next {@code replies} requests were answered (their replies written) at {@code now}. */
    void replied(int replies, long now) {
        for (int k = 0; k < replies && size > 0; k++) {
            metrics.replied(ops[head], now - starts[head]);
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
