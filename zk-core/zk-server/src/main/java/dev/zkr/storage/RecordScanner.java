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
    private final long end;
    private final CRC32C crc = new CRC32C();
    private ByteBuffer buf = ByteBuffer.allocate(256 << 10);
    private long bufStart; // file offset of buf[0]
    private long pos;      // file offset of the next record
    private long lastZxid;

    private long recordStart;
    private long zxid;
    private byte[] payload;
    private boolean endOfBatch;
    private int claimedLength = -1;
    private String problem = "";

    RecordScanner(FileChannel channel, long start, long end, long prevZxid) {
        this.channel = channel;
        this.end = end;
        this.pos = start;
        this.bufStart = start;
        this.lastZxid = prevZxid;
        buf.limit(0);
    }

    Status next() throws IOException {
        recordStart = pos;
        claimedLength = -1;
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
        int len = lenFlags & LogFormat.LENGTH_MASK;
        if (len > LogFormat.MAX_PAYLOAD) {
            return fail(Status.CORRUPT, "implausible record length " + len);
        }
        claimedLength = len;
        if (left < LogFormat.recordBytes(len)) {
            return fail(Status.SHORT, "record of " + LogFormat.recordBytes(len) + " bytes but only " + left + " left");
        }
        b = window(LogFormat.recordBytes(len));
        at = b.position();
        byte[] data = new byte[len];
        b.get(at + LogFormat.RECORD_HEADER_BYTES, data);
        if (LogFormat.checksum(crc, lenFlags, z, data, 0, len) != stored) {
            return fail(Status.CORRUPT, "checksum mismatch");
        }
        if (z <= lastZxid) {
            return fail(Status.CORRUPT, "zxid 0x" + Long.toHexString(z) + " not above previous 0x"
                    + Long.toHexString(lastZxid));
        }
        zxid = z;
        lastZxid = z;
        payload = data;
        endOfBatch = (lenFlags & LogFormat.END_OF_BATCH) != 0;
        pos += LogFormat.recordBytes(len);
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

    /** Payload length claimed by the last bad record's header, or -1 if unknown. */
    int claimedLength() {
        return claimedLength;
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
