package dev.zkr.recipes;

import dev.zkr.client.Stat;

import java.nio.ByteBuffer;

/**
 * What one read of a counter's value node gives: its data ({@code base}, {@code c0}, the tag of the write that set
 * them) and its Stat ({@code version}, {@code cversion}). The value is {@code base + (cversion - c0)}: every child
 * create raises the node's cversion by one, a child delete does not change it.
 */
record CounterState(long base, int c0, long tag, int version, int cversion) {

    private static final int BYTES = Long.BYTES + Integer.BYTES + Long.BYTES;

    /** The counter's value. */
    long value() {
        return base + (cversion - c0);
    }

    /** The value right after the child with this sequence number was created (its create made cversion s+1). */
    long valueAfter(int sequence) {
        return base + (sequence + 1 - c0);
    }

    /** The same data with a higher known cversion (children created since this was read). */
    CounterState withCversion(int newCversion) {
        return new CounterState(base, c0, tag, version, Math.max(cversion, newCversion));
    }

    static byte[] encode(long base, int c0, long tag) {
        return ByteBuffer.allocate(BYTES).putLong(base).putInt(c0).putLong(tag).array();
    }

    /** Decodes a value node; data too short to be ours (an empty node) reads as base 0, c0 0. */
    static CounterState decode(byte[] data, Stat stat) {
        if (data.length < BYTES) {
            return new CounterState(0, 0, 0, stat.version(), stat.cversion());
        }
        ByteBuffer b = ByteBuffer.wrap(data);
        return new CounterState(b.getLong(), b.getInt(), b.getLong(), stat.version(), stat.cversion());
    }
}
