package dev.zkr.server.port;

import dev.zkr.server.ServerConfig;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The server-wide count of unsent bytes held for connections that are not draining (above their high water mark),
 * against {@link ServerConfig#maxOutboundBytesTotal()}. Each connection adds and removes only its own share, from its
 * event loop; the total is shared by all of them. Over the limit, the connections holding at least a fair share
 * (the limit divided by the number of connections holding any) are the ones to close: a client whose replies
 * briefly pass its high water mark is not closed for what slow readers hold.
 */
final class OutboundBudget {

    private final long limit;
    private final AtomicLong held = new AtomicLong();
    private final AtomicLong holders = new AtomicLong();
    private final AtomicLong closed = new AtomicLong();

    OutboundBudget(long limit) {
        this.limit = limit;
    }

    /** Changes a connection's share from {@code before} to {@code after} bytes; true if the total is within limit. */
    boolean update(long before, long after) {
        if (before == 0 && after > 0) {
            holders.incrementAndGet();
        } else if (before > 0 && after == 0) {
            holders.decrementAndGet();
        }
        long total = after == before ? held.get() : held.addAndGet(after - before);
        return total <= limit;
    }

    /** True if a connection holding {@code share} bytes should be closed: over the limit and at least a fair share. */
    boolean overFairShare(long share) {
        long n = Math.max(1, holders.get());
        return held.get() > limit && share > 0 && share >= limit / n;
    }

    /** Counts a connection closed because the total was over the limit. */
    void closed() {
        closed.incrementAndGet();
    }

    /** Connections closed so far because the total was over the limit. */
    long closedCount() {
        return closed.get();
    }

    /** Bytes held now. */
    long held() {
        return held.get();
    }

    long limit() {
        return limit;
    }
}
