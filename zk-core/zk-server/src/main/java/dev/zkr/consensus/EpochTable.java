package dev.zkr.consensus;

import java.util.Arrays;
import java.util.List;

/**
 * Per epoch, the last zxid a log holds of it (only epochs with records after the log's base). Within one epoch only
 * one leader proposes and followers append contiguously, so two logs holding (e,c) agree up to it (docs/replication.md,
 * Common prefix). Immutable; epochs ascending.
 */
public final class EpochTable {
    public static final EpochTable EMPTY = new EpochTable(new long[0], new long[0]);

    private final long[] epochs;
    private final long[] lasts;

    private EpochTable(long[] epochs, long[] lasts) {
        this.epochs = epochs;
        this.lasts = lasts;
    }

    /** The table of records in zxid order. */
    public static EpochTable of(List<Entry> entries) {
        Builder b = new Builder();
        for (Entry e : entries) {
            b.add(e.zxid());
        }
        return b.build();
    }

    /** Builds a table from zxids added in increasing order. */
    public static final class Builder {
        private long[] epochs = new long[4];
        private long[] lasts = new long[4];
        private int n;

        public Builder add(long zxid) {
            long e = Zxid.epoch(zxid);
            if (n > 0 && zxid <= lasts[n - 1]) {
                throw new IllegalArgumentException("zxids out of order: " + Zxid.str(zxid));
            }
            if (n > 0 && epochs[n - 1] == e) {
                lasts[n - 1] = zxid;
                return this;
            }
            if (n == epochs.length) {
                epochs = Arrays.copyOf(epochs, n * 2);
                lasts = Arrays.copyOf(lasts, n * 2);
            }
            epochs[n] = e;
            lasts[n] = zxid;
            n++;
            return this;
        }

        public EpochTable build() {
            return n == 0 ? EMPTY : new EpochTable(Arrays.copyOf(epochs, n), Arrays.copyOf(lasts, n));
        }
    }

    /** The last zxid of {@code epoch}, or {@link Zxid#NONE} if the table has no record of it. */
    public long lastOf(long epoch) {
        int i = Arrays.binarySearch(epochs, epoch);
        return i >= 0 ? lasts[i] : Zxid.NONE;
    }

    public int size() {
        return epochs.length;
    }

    public long epochAt(int i) {
        return epochs[i];
    }

    public long lastAt(int i) {
        return lasts[i];
    }

    /** The table of the same log cut after {@code zxid}. */
    public EpochTable clippedTo(long zxid) {
        Builder b = new Builder();
        for (int i = 0; i < epochs.length; i++) {
            if (Zxid.epoch(zxid) > epochs[i]) {
                b.add(lasts[i]);
            } else if (Zxid.epoch(zxid) == epochs[i]) {
                b.add(Math.min(lasts[i], zxid));
            }
        }
        return b.build();
    }

    /** Only the epochs with records above {@code zxid}. */
    public EpochTable above(long zxid) {
        int from = 0;
        while (from < epochs.length && lasts[from] <= zxid) {
            from++;
        }
        return from == 0 ? this : new EpochTable(Arrays.copyOfRange(epochs, from, epochs.length),
                Arrays.copyOfRange(lasts, from, lasts.length));
    }

    /**
     * The end of the prefix this log (the leader's) shares with {@code other} (a follower's), knowing the follower's
     * log is committed through {@code otherCommit}: max(otherCommit, max over common epochs of min(last, last)).
     */
    public long commonPrefix(EpochTable other, long otherCommit) {
        long common = otherCommit;
        for (int i = 0; i < other.epochs.length; i++) {
            long mine = lastOf(other.epochs[i]);
            if (mine != Zxid.NONE) {
                common = Math.max(common, Math.min(mine, other.lasts[i]));
            }
        }
        return common;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof EpochTable t && Arrays.equals(t.epochs, epochs) && Arrays.equals(t.lasts, lasts);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(lasts);
    }

    @Override
    public String toString() {
        StringBuilder s = new StringBuilder("[");
        for (int i = 0; i < lasts.length; i++) {
            s.append(i == 0 ? "" : " ").append(Zxid.str(lasts[i]));
        }
        return s.append(']').toString();
    }
}
