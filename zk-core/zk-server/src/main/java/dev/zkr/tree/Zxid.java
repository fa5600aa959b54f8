package dev.zkr.tree;

/**
 * Zxids as in ZooKeeper: the epoch in the high 32 bits, a counter within the epoch in the low 32, so zxids of a
 * later epoch are above every zxid of an earlier one. A standalone server uses epoch 1. Zxids written before epochs
 * existed were a plain counter from 1 (epoch 0 when read this way), so the first zxid of epoch 1,
 * {@code (1 << 32) | 1}, is above all of them and a data directory of that time continues without a clash.
 */
public final class Zxid {

    private static final long COUNTER_MASK = 0xFFFF_FFFFL;

    private Zxid() {
    }

    /** The zxid of a counter within an epoch (both 0 .. 2^32 - 1). */
    public static long of(long epoch, long counter) {
        if (epoch < 0 || epoch > COUNTER_MASK || counter < 0 || counter > COUNTER_MASK) {
            throw new IllegalArgumentException("epoch " + epoch + " / counter " + counter + " out of 32 bits");
        }
        return (epoch << 32) | counter;
    }

    /** The epoch of a zxid (its high 32 bits). */
    public static long epoch(long zxid) {
        return zxid >>> 32;
    }

    /** The counter of a zxid within its epoch (its low 32 bits). */
    public static long counter(long zxid) {
        return zxid & COUNTER_MASK;
    }

    /**
     * The zxid a server of {@code epoch} gives the txn after {@code last}: the next counter of the epoch, or the
     * epoch's first ({@code (epoch, 1)}) if {@code last} is of an earlier epoch. Counter 0 is never handed out
     * (ZooKeeper's and the replication design's marker of an epoch's start); a full counter rolls into the next epoch
     * number's counter 1, which keeps zxids increasing.
     */
    public static long next(long last, long epoch) {
        long next = Math.max(last + 1, of(epoch, 1));
        return counter(next) == 0 ? next + 1 : next;
    }

    /** {@code epoch.counter} in hex, e.g. {@code 1.2a}: readable in logs where a 64-bit hex number is not. */
    public static String toString(long zxid) {
        return Long.toHexString(epoch(zxid)) + "." + Long.toHexString(counter(zxid));
    }
}
