package dev.zkr.server;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The server-wide count of unsent bytes held for connections that are not draining (above their high water mark),
 * against {@link ServerConfig#maxOutboundBytesTotal()}. Each connection adds and removes only its own share, from its
 * event loop; the total is shared by all of them.
 */
final class OutboundBudget {

    private final long limit;
    private final AtomicLong held = new AtomicLong();

    OutboundBudget(long limit) {
        this.limit = limit;
    }

    /** Changes a connection's share from {@code before} to {@code after} bytes; true if the total is within limit. */
    boolean update(long before, long after) {
        long total = after == before ? held.get() : held.addAndGet(after - before);
        return total <= limit;
    }

    /** Bytes held now. */
    long held() {
        return held.get();
    }

    long limit() {
        return limit;
    }
}
