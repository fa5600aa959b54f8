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

    /** "e.c", or "-" for {@link #NONE}. */
    public static String str(long zxid) {
        return zxid == NONE ? "-" : epoch(zxid) + "." + counter(zxid);
    }
}
