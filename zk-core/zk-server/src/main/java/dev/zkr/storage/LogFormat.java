package dev.zkr.storage;

import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * The on-disk layout of log segments.
 *
 * <pre>
 * segment   = header record*
 * header v1 = magic:int32 "ZKRL" | 1:int32 | prevZxid:int64 | crc32c(previous 16 bytes):int32 | 0:int32
 * header v2 = magic:int32 "ZKRL" | 2:int32 | prevZxid:int64 | commitMark:int64 | crc32c(previous 24 bytes):int32
 *             | 0:int32
 * record    = lenFlags:int32 | crc32c(lenFlags, zxid, payload[, mark]):int32 | zxid:int64 | payload[len]
 *             [ | mark:int64 ]
 * </pre>
 * All integers are big-endian. {@code lenFlags} holds the payload length and flags: the top bit marks the last
 * record of a group-commit batch (a batch is written with one write and one fsync; the next batch is written only
 * after that fsync returned). In v2 segments the next bit says that the record carries an 8-byte trailer after its
 * payload: the commit mark (highest zxid known committed) when the batch was written; every batch-end record of a
 * v2 segment carries one, and the v2 header carries the mark at the segment's creation. A v1 segment carries no
 * mark: all its records count as committed. {@code prevZxid} is the zxid of the last record before this segment
 * (0 for the first segment of a fresh log); every record of the segment has a larger zxid. A segment is named
 * {@code log.<prevZxid+1 hex>}. The payload is opaque here (its own encoding is versioned by its writer).
 */
final class LogFormat {

    static final int SEGMENT_MAGIC = 0x5A4B524C; // "ZKRL"
    /** The version new segments are written with. */
    static final int VERSION = 2;
    static final int V1_HEADER_BYTES = 24;
    static final int V2_HEADER_BYTES = 32;
    /** The largest header size of any version (what a reader reads first). */
    static final int MAX_HEADER_BYTES = V2_HEADER_BYTES;
    static final int RECORD_HEADER_BYTES = 16;
    static final int MARK_BYTES = 8;
    static final int END_OF_BATCH = 0x8000_0000;
    /** v2 only: the record carries a commit mark trailer. */
    static final int HAS_MARK = 0x4000_0000;
    static final int V1_LENGTH_MASK = 0x7FFF_FFFF;
    static final int V2_LENGTH_MASK = 0x3FFF_FFFF;
    /** Largest payload accepted; a length field above it is treated as corruption. */
    static final int MAX_PAYLOAD = 64 << 20;
    static final String SEGMENT_PREFIX = "log.";

    /** A decoded segment header; {@code commitMark} of a v1 header is -1 (v1 has none: everything counts). */
    record Header(int version, long prevZxid, long commitMark) {
        int bytes() {
            return version == 1 ? V1_HEADER_BYTES : V2_HEADER_BYTES;
        }
    }

    private LogFormat() {
    }

    static int headerBytes() {
        return V2_HEADER_BYTES;
    }

    /** Writes a header of the current version. */
    static void putSegmentHeader(ByteBuffer buf, long prevZxid, long commitMark) {
        int start = buf.position();
        buf.putInt(SEGMENT_MAGIC).putInt(VERSION).putLong(prevZxid).putLong(commitMark);
        CRC32C crc = new CRC32C();
        crc.update(buf.duplicate().position(start).limit(start + 24));
        buf.putInt((int) crc.getValue()).putInt(0);
    }

    /** Writes a v1 header (only for tests of old logs). */
    static void putV1SegmentHeader(ByteBuffer buf, long prevZxid) {
        int start = buf.position();
        buf.putInt(SEGMENT_MAGIC).putInt(1).putLong(prevZxid);
        CRC32C crc = new CRC32C();
        crc.update(buf.duplicate().position(start).limit(start + 16));
        buf.putInt((int) crc.getValue()).putInt(0);
    }

    /** The header at the buffer's position, or null when it is damaged, short or of an unknown version. */
    static Header readSegmentHeader(ByteBuffer header) {
        int start = header.position();
        if (header.remaining() < V1_HEADER_BYTES || header.getInt(start) != SEGMENT_MAGIC) {
            return null;
        }
        int version = header.getInt(start + 4);
        int covered;
        if (version == 1) {
            covered = 16;
        } else if (version == 2 && header.remaining() >= V2_HEADER_BYTES) {
            covered = 24;
        } else {
            return null;
        }
        CRC32C crc = new CRC32C();
        crc.update(header.duplicate().position(start).limit(start + covered));
        long prev = header.getLong(start + 8);
        long mark = version == 1 ? -1 : header.getLong(start + 16);
        if (header.getInt(start + covered) != (int) crc.getValue() || prev < 0 || (version == 2 && mark < 0)) {
            return null;
        }
        return new Header(version, prev, mark);
    }

    static int recordBytes(int payloadLength, boolean hasMark) {
        return RECORD_HEADER_BYTES + payloadLength + (hasMark ? MARK_BYTES : 0);
    }

    /**
     * Appends one record of the current version to {@code buf} (which must have room); a batch-end record carries
     * {@code commitMark}, others ignore it.
     */
    static void putRecord(ByteBuffer buf, CRC32C crc, long zxid, byte[] payload, boolean endOfBatch,
                          long commitMark) {
        int lenFlags = payload.length | (endOfBatch ? END_OF_BATCH | HAS_MARK : 0);
        buf.putInt(lenFlags).putInt(checksum(crc, lenFlags, zxid, payload, 0, payload.length, endOfBatch,
                commitMark)).putLong(zxid).put(payload);
        if (endOfBatch) {
            buf.putLong(commitMark);
        }
    }

    /** Appends one v1 record (only for tests of old logs). */
    static void putV1Record(ByteBuffer buf, CRC32C crc, long zxid, byte[] payload, boolean endOfBatch) {
        int lenFlags = payload.length | (endOfBatch ? END_OF_BATCH : 0);
        buf.putInt(lenFlags).putInt(checksum(crc, lenFlags, zxid, payload, 0, payload.length, false, 0))
                .putLong(zxid).put(payload);
    }

    static int checksum(CRC32C crc, int lenFlags, long zxid, byte[] payload, int off, int len, boolean hasMark,
                        long mark) {
        crc.reset();
        crc.update(lenFlags >>> 24);
        crc.update(lenFlags >>> 16);
        crc.update(lenFlags >>> 8);
        crc.update(lenFlags);
        for (int shift = 56; shift >= 0; shift -= 8) {
            crc.update((int) (zxid >>> shift));
        }
        crc.update(payload, off, len);
        if (hasMark) {
            for (int shift = 56; shift >= 0; shift -= 8) {
                crc.update((int) (mark >>> shift));
            }
        }
        return (int) crc.getValue();
    }
}
