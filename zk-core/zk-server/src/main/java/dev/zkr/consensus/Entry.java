package dev.zkr.consensus;

import java.util.Arrays;

/**
 * One replicated record: a zxid and opaque bytes. The record at (e,0) is epoch e's {@code EPOCH} record (Zab's
 * NEWLEADER), appended by e's leader; its payload is empty.
 */
public record Entry(long zxid, byte[] payload) {
    public Entry {
        if (payload == null) {
            throw new IllegalArgumentException("payload is null");
        }
    }

    static Entry epochRecord(long epoch) {
        return new Entry(Zxid.of(epoch, 0), new byte[0]);
    }

    public boolean isEpochRecord() {
        return Zxid.counter(zxid) == 0;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Entry e && e.zxid == zxid && Arrays.equals(e.payload, payload);
    }

    @Override
    public int hashCode() {
        return Long.hashCode(zxid) * 31 + Arrays.hashCode(payload);
    }

    @Override
    public String toString() {
        return Zxid.str(zxid) + "#" + Integer.toHexString(Arrays.hashCode(payload));
    }
}
