package dev.zkr.storage;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.util.zip.CRC32C;

/**
 * Reads and validates records of one segment between two file offsets, sequentially, through a buffer.
 * {@link #next()} says whether a valid record was read or why not; it never throws for bad data.
 */
final class RecordScanner {

    enum Status {
        /** a valid record was read. */
        RECORD,
        /** the end offset was reached exactly. */
        END,
        /** an all-zero record header: unused (preallocated) space. */
        ZEROS,
        /** fewer bytes left than the record needs: a write cut short. */
        SHORT,
        /** checksum mismatch, implausible length or zxid out of order. */
        CORRUPT
    }

    private final FileChannel channel;
    private final int version;
    private final long end;
    private final CRC32C crc = new CRC32C();
    private ByteBuffer buf = ByteBuffer.allocate(256 << 10);
    private long bufStart; // file offset of buf[0]
    private long pos;      // file offset of the next record
    private long lastZxid;
    /** The last commit mark read (header or trailer); for v1, -1 (everything counts as committed). */
    private long commitMark;

    private long recordStart;
    private long zxid;
    private byte[] payload;
    private boolean endOfBatch;
    private int claimedBytes = -1;
    private String problem = "";

    /** Scans a segment of {@code header}'s version from {@code start} (after the header) to {@code end}. */
    RecordScanner(FileChannel channel, LogFormat.Header header, long start, long end, long prevZxid) {
        this.channel = channel;
        this.version = header.version();
        this.commitMark = header.commitMark();
        this.end = end;
        this.pos = start;
        this.bufStart = start;
        this.lastZxid = prevZxid;
        buf.limit(0);
    }

    Status next() throws IOException {
        recordStart = pos;
        claimedBytes = -1;
        long left = end - pos;
        if (left == 0) {
            return Status.END;
        }
        if (left < LogFormat.RECORD_HEADER_BYTES) {
            return fail(Status.SHORT, "incomplete record header (" + left + " bytes)");
        }
        ByteBuffer b = window(LogFormat.RECORD_HEADER_BYTES);
        int at = b.position();
        int lenFlags = b.getInt(at);
        int stored = b.getInt(at + 4);
        long z = b.getLong(at + 8);
        if (lenFlags == 0 && stored == 0 && z == 0) {
            return fail(Status.ZEROS, "zero-filled space");
        }
        boolean hasMark = version >= 2 && (lenFlags & LogFormat.HAS_MARK) != 0;
        int len = lenFlags & (version == 1 ? LogFormat.V1_LENGTH_MASK : LogFormat.V2_LENGTH_MASK);
        if (len > LogFormat.MAX_PAYLOAD) {
            return fail(Status.CORRUPT, "implausible record length " + len);
        }
        int size = LogFormat.recordBytes(len, hasMark);
        claimedBytes = size;
        if (left < size) {
            return fail(Status.SHORT, "record of " + size + " bytes but only " + left + " left");
        }
        b = window(size);
        at = b.position();
        byte[] data = new byte[len];
        b.get(at + LogFormat.RECORD_HEADER_BYTES, data);
        long mark = hasMark ? b.getLong(at + LogFormat.RECORD_HEADER_BYTES + len) : -1;
        if (LogFormat.checksum(crc, lenFlags, z, data, 0, len, hasMark, mark) != stored) {
            return fail(Status.CORRUPT, "checksum mismatch");
        }
        if (z <= lastZxid) {
            return fail(Status.CORRUPT, "zxid 0x" + Long.toHexString(z) + " not above previous 0x"
                    + Long.toHexString(lastZxid));
        }
        if (hasMark && (mark < 0 || mark > z)) {
            return fail(Status.CORRUPT, "commit mark 0x" + Long.toHexString(mark) + " above its record's zxid 0x"
                    + Long.toHexString(z));
        }
        zxid = z;
        lastZxid = z;
        payload = data;
        endOfBatch = (lenFlags & LogFormat.END_OF_BATCH) != 0;
        if (hasMark) {
            commitMark = Math.max(commitMark, mark);
        }
        pos += size;
        return Status.RECORD;
    }

    private Status fail(Status status, String why) {
        problem = why;
        return status;
    }

    /** A buffer whose position is at file offset {@code pos} with at least {@code n} bytes readable. */
    private ByteBuffer window(int n) throws IOException {
        int offset = (int) (pos - bufStart);
        if (offset + n > buf.limit()) {
            if (n > buf.capacity()) {
                buf = ByteBuffer.allocate(Math.max(n, buf.capacity() * 2));
            }
            buf.clear();
            bufStart = pos;
            long want = Math.min(buf.capacity(), end - pos);
            buf.limit((int) want);
            while (buf.hasRemaining()) {
                int r = channel.read(buf, bufStart + buf.position());
                if (r < 0) {
                    throw new IOException("file ended early at offset " + (bufStart + buf.position()));
                }
            }
            buf.flip();
            offset = 0;
        }
        return buf.position(offset);
    }

    /** File offset where the record last looked at starts. */
    long recordStart() {
        return recordStart;
    }

    /** File offset after the last valid record. */
    long position() {
        return pos;
    }

    /** Size in bytes claimed by the last bad record's header, or -1 if unknown. */
    int claimedBytes() {
        return claimedBytes;
    }

    /**
     * The commit mark after the records read so far: the highest mark of the header and the trailers; for a v1
     * segment the last zxid read (a v1 log counts every record as committed).
     */
    long commitMark() {
        return version == 1 ? lastZxid : commitMark;
    }

    long zxid() {
        return zxid;
    }

    long lastZxid() {
        return lastZxid;
    }

    byte[] payload() {
        return payload;
    }

    boolean endOfBatch() {
        return endOfBatch;
    }

    String problem() {
        return problem;
    }
}
