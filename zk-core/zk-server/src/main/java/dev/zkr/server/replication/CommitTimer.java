package dev.zkr.server.replication;

import java.util.function.LongConsumer;

/**
 * When each of this server's proposals was made, until it commits (metrics: proposal commit latency). A ring of
 * (zxid, nanoTime) pairs in proposal order, touched only inside rounds; no allocation per txn once grown.
 */
final class CommitTimer {

    private long[] zxids = new long[256];
    private long[] starts = new long[256];
    private int head;
    private int size;
    private final LongConsumer sink;

    /** @param sink told each committed proposal's latency in nanoseconds */
    CommitTimer(LongConsumer sink) {
        this.sink = sink;
    }

    void proposed(long zxid, long now) {
        if (size == zxids.length) {
            grow();
        }
        int i = (head + size) & (zxids.length - 1);
        zxids[i] = zxid;
        starts[i] = now;
        size++;
    }

    /** Everything proposed up to {@code commitZxid} committed at {@code now}. */
    void committed(long commitZxid, long now) {
        while (size > 0 && zxids[head] <= commitZxid) {
            sink.accept(now - starts[head]);
            head = (head + 1) & (zxids.length - 1);
            size--;
        }
    }

    /** The log was cut or this server stopped leading: what is pending will not be timed. */
    void clear() {
        head = 0;
        size = 0;
    }

    boolean isEmpty() {
        return size == 0;
    }

    private void grow() {
        long[] z = new long[zxids.length * 2];
        long[] s = new long[z.length];
        for (int k = 0; k < size; k++) {
            int i = (head + k) & (zxids.length - 1);
            z[k] = zxids[i];
            s[k] = starts[i];
        }
        zxids = z;
        starts = s;
        head = 0;
    }
}
