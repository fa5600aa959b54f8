package dev.zkr.storage;

import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * The on-disk layout of log segments.
 *
 * <pre>
 * segment = header record*
 * header  = magic:int32 "ZKRL" | version:int32 | prevZxid:int64 | crc32c(previous 16 bytes):int32 | 0:int32
 * record  = lenFlags:int32 | crc32c(lenFlags, zxid, payload):int32 | zxid:int64 | payload[len]
 * </pre>
 * All integers are big-endian. {@code lenFlags} is the payload length; its top bit marks the last record of a
 * group-commit batch (a batch is written with one write and one fsync; the next batch is written only after that
 * fsync returned). {@code prevZxid} is the zxid of the last record before this segment (0 for the first segment
 * of a fresh log); every record of the segment has a larger zxid. A segment is named {@code log.<prevZxid+1 hex>}.
 */
final class LogFormat {

    static final int SEGMENT_MAGIC = 0x5A4B524C; // "ZKRL"
    static final int VERSION = 1;
    static final int SEGMENT_HEADER_BYTES = 24;
    static final int RECORD_HEADER_BYTES = 16;
    static final int END_OF_BATCH = 0x8000_0000;
    static final int LENGTH_MASK = 0x7FFF_FFFF;
    /** Largest payload accepted; a length field above it is treated as corruption. */
    static final int MAX_PAYLOAD = 64 << 20;
    static final String SEGMENT_PREFIX = "log.";

    private LogFormat() {
    }

    static void putSegmentHeader(ByteBuffer buf, long prevZxid) {
        int start = buf.position();
        buf.putInt(SEGMENT_MAGIC).putInt(VERSION).putLong(prevZxid);
        CRC32C crc = new CRC32C();
        crc.update(buf.duplicate().position(start).limit(start + 16));
        buf.putInt((int) crc.getValue()).putInt(0);
    }

    /** The prevZxid of a segment header, or -1 when the header is damaged or of an unknown version. */
    static long readSegmentHeader(ByteBuffer header) {
        if (header.remaining() < SEGMENT_HEADER_BYTES) {
            return -1;
        }
        int start = header.position();
        CRC32C crc = new CRC32C();
        crc.update(header.duplicate().position(start).limit(start + 16));
        int magic = header.getInt(start);
        int version = header.getInt(start + 4);
        long prev = header.getLong(start + 8);
        int stored = header.getInt(start + 16);
        if (magic != SEGMENT_MAGIC || version != VERSION || stored != (int) crc.getValue() || prev < 0) {
            return -1;
        }
        return prev;
    }

    static int recordBytes(int payloadLength) {
        return RECORD_HEADER_BYTES + payloadLength;
    }

    /** Appends one record to {@code buf} (which must have room). */
    static void putRecord(ByteBuffer buf, CRC32C crc, long zxid, byte[] payload, boolean endOfBatch) {
        int lenFlags = payload.length | (endOfBatch ? END_OF_BATCH : 0);
        buf.putInt(lenFlags).putInt(checksum(crc, lenFlags, zxid, payload, 0, payload.length)).putLong(zxid)
                .put(payload);
    }

    static int checksum(CRC32C crc, int lenFlags, long zxid, byte[] payload, int off, int len) {
        crc.reset();
        crc.update(lenFlags >>> 24);
        crc.update(lenFlags >>> 16);
        crc.update(lenFlags >>> 8);
        crc.update(lenFlags);
        for (int shift = 56; shift >= 0; shift -= 8) {
            crc.update((int) (zxid >>> shift));
        }
        crc.update(payload, off, len);
        return (int) crc.getValue();
    }
}
