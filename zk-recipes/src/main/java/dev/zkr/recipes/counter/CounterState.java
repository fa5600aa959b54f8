package dev.zkr.recipes.counter;

import dev.zkr.client.Stat;

import java.nio.ByteBuffer;

/**
 * What one read of a counter's value node gives: its data ({@code base}, {@code c0}, the tag of the write that set
 * them), its data {@code version} and {@code creates}, the number of children ever created under it (the next
 * sequence number). The value is {@code base + (creates - c0)}.
 *
 * <p>The Stat gives {@code creates} atomically with the data: cversion counts creates and deletes (zkr reports it
 * as Apache ZooKeeper does, {@code 2 * creates - numChildren}), so {@code creates = (cversion + numChildren) / 2}.
 * Sequence numbers count creates.
 *
 * <p>Internal, not API (public only for {@code DistributedCounter}).
 */
public record CounterState(long base, int c0, long tag, int version, int creates) {

    private static final int BYTES = Long.BYTES + Integer.BYTES + Long.BYTES;

    /** The counter's value. */
    public long value() {
        return base + (creates - c0);
    }

    /** The value right after the child with this sequence number was created (then {@code creates} was s+1). */
    public long valueAfter(int sequence) {
        return base + (sequence + 1 - c0);
    }

    /** The same data with a higher known creates count (children created since this was read). */
    public CounterState withCreates(int newCreates) {
        return new CounterState(base, c0, tag, version, Math.max(creates, newCreates));
    }

    public static byte[] encode(long base, int c0, long tag) {
        return ByteBuffer.allocate(BYTES).putLong(base).putInt(c0).putLong(tag).array();
    }

    /** The number of children ever created, from a Stat (its cversion counts creates and deletes). */
    public static int creates(Stat stat) {
        return (stat.cversion() + stat.numChildren()) / 2;
    }

    /** Decodes a value node; data too short to be ours (an empty node) reads as base 0, c0 0. */
    public static CounterState decode(byte[] data, Stat stat) {
        int creates = creates(stat);
        if (data.length < BYTES) {
            return new CounterState(0, 0, 0, stat.version(), creates);
        }
        ByteBuffer b = ByteBuffer.wrap(data);
        return new CounterState(b.getLong(), b.getInt(), b.getLong(), stat.version(), creates);
    }
}
