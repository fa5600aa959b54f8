package dev.zkr.consensus;

/** zxid = epoch &lt;&lt; 32 | counter. (e,0) is the epoch's {@code EPOCH} record; 0 is the empty log. */
public final class Zxid {
    /** "No zxid": no truncation, no install, a refused read. */
    public static final long NONE = -1;

    private Zxid() {}

    public static long of(long epoch, long counter) {
        if (epoch < 0 || epoch > 0x7fff_ffffL || counter < 0 || counter > 0xffff_ffffL) {
            throw new IllegalArgumentException("zxid out of range: " + epoch + "." + counter);
        }
        return epoch << 32 | counter;
    }

    public static long epoch(long zxid) {
        return zxid >>> 32;
    }

    public static long counter(long zxid) {
        return zxid & 0xffff_ffffL;
    }

    /**
     * The zxid a server of {@code epoch} gives the txn after {@code last}: the next counter of the epoch, or the
     * epoch's first ({@code (epoch, 1)}) if {@code last} is of an earlier epoch. Counter 0 is never handed out (the
     * epoch's {@code EPOCH} record); a full counter rolls into the next epoch number's counter 1, which keeps zxids
     * increasing. Zxids of the plain-counter days (before epochs) read as epoch 0, below every epoch-1 zxid.
     */
    public static long next(long last, long epoch) {
        long next = Math.max(last + 1, of(epoch, 1));
        return counter(next) == 0 ? next + 1 : next;
    }

    /** "e.c" in decimal, or "-" for {@link #NONE}. */
    public static String str(long zxid) {
        return zxid == NONE ? "-" : epoch(zxid) + "." + counter(zxid);
    }
}
