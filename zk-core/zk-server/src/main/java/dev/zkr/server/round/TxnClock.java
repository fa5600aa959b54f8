package dev.zkr.server.round;

import dev.zkr.tree.TxnCodec;

import java.util.List;
import java.util.function.LongSupplier;

/**
 * The time a txn carries: the server's wall clock (injected: the system clock in a server, the simulator's clock
 * with its jumps in tests), never below the newest txn time this server logged or applied. So txn times never go
 * back — across a backward jump of the leader's clock, a new leader whose clock is behind the old one's, or the
 * {@code EPOCH} record of a restarted server. Only txn times come from it: round time (timers, session deadlines,
 * election ticks) is {@link Core}'s monotonic clock. Round state (docs/architecture.md, Threads).
 */
public final class TxnClock {

    private final LongSupplier wall;
    private long newest;

    /**
     * @param wall   the wall clock (milliseconds since the epoch)
     * @param newest the newest txn time known at start (the last logged record's, 0 for none)
     */
    public TxnClock(LongSupplier wall, long newest) {
        this.wall = wall;
        this.newest = newest;
    }

    /** The system clock, starting from nothing seen. */
    static TxnClock system() {
        return new TxnClock(System::currentTimeMillis, 0);
    }

    /** The time for a new txn: max(wall clock, newest txn time); it is not remembered until {@link #observe}d. */
    long now() {
        return Math.max(wall.getAsLong(), newest);
    }

    /** The time for a new txn, remembered as the newest (for records stamped outside the Prep stage). */
    public long next() {
        long t = now();
        newest = t;
        return t;
    }

    /** The time of the last logged record (0 for none): a restarted server's next txn or EPOCH record is not older. */
    public static long lastTime(dev.zkr.consensus.LogView view) {
        long last = view.lastZxid();
        if (last <= 0 || last <= view.baseZxid()) {
            return 0;
        }
        List<dev.zkr.consensus.Entry> entries = view.entriesAfter(last - 1);
        if (entries.isEmpty() || entries.get(0).payload().length == 0) {
            return 0;
        }
        return TxnCodec.decode(entries.get(0).payload()).header().time();
    }

    /** A txn with this time was handed out, logged or applied. */
    void observe(long time) {
        newest = Math.max(newest, time);
    }
}
