package dev.zkr.server.zookeeper;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufInputStream;
import org.apache.jute.BinaryInputArchive;
import org.apache.jute.BinaryOutputArchive;
import org.apache.jute.Record;

import java.io.DataOutput;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * Jute archives over Netty buffers: reading a frame with every declared length bounded by the frame's own size
 * (a hostile length fails before anything is allocated for it), and writing length-prefixed frames.
 */
final class Jute {

    private Jute() {
    }

    /** An archive reading the frame's readable bytes (advancing its reader index). */
    static BinaryInputArchive reader(ByteBuf frame) {
        return new BinaryInputArchive(new ByteBufInputStream(frame), frame.readableBytes(), 0);
    }

    /** Reads one record of the frame; false (with the frame's position unspecified) if it does not decode. */
    static boolean read(BinaryInputArchive in, Record record) {
        try {
            record.deserialize(in, "record");
            return true;
        } catch (IOException | RuntimeException e) { // EOF, an unreasonable length, a malformed value
            return false;
        }
    }

    /**
     * Writes frames: one jute archive, reused for every frame (a jute output archive holds a 1 KiB string buffer,
     * which would otherwise be allocated per frame). One per connection; not thread-safe.
     */
    static final class Writer {
        private final Target target = new Target();
        private final BinaryOutputArchive archive = new BinaryOutputArchive(target);

        /**
         * Appends one frame to {@code out}: its 4-byte length, then the records in order (null ones skipped, as
         * ZooKeeper's server writes a reply without a body).
         */
        void frame(ByteBuf out, Record... records) {
            int start = out.writerIndex();
            out.writeInt(0);
            target.out = out;
            try {
                for (Record r : records) {
                    if (r != null) {
                        r.serialize(archive, "record");
                    }
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e); // a ByteBuf does not fail to grow but by running out of memory
            } finally {
                target.out = null;
            }
            out.setInt(start, out.writerIndex() - start - 4);
        }
    }

    /** The DataOutput a jute archive writes to: whichever buffer the current frame goes to. */
    private static final class Target implements DataOutput {
        ByteBuf out;

        @Override
        public void write(int b) {
            out.writeByte(b);
        }

        @Override
        public void write(byte[] b) {
            out.writeBytes(b);
        }

        @Override
        public void write(byte[] b, int off, int len) {
            out.writeBytes(b, off, len);
        }

        @Override
        public void writeBoolean(boolean v) {
            out.writeBoolean(v);
        }

        @Override
        public void writeByte(int v) {
            out.writeByte(v);
        }

        @Override
        public void writeShort(int v) {
            out.writeShort(v);
        }

        @Override
        public void writeChar(int v) {
            out.writeChar(v);
        }

        @Override
        public void writeInt(int v) {
            out.writeInt(v);
        }

        @Override
        public void writeLong(long v) {
            out.writeLong(v);
        }

        @Override
        public void writeFloat(float v) {
            out.writeFloat(v);
        }

        @Override
        public void writeDouble(double v) {
            out.writeDouble(v);
        }

        @Override
        public void writeBytes(String s) {
            out.writeCharSequence(s, StandardCharsets.ISO_8859_1);
        }

        @Override
        public void writeChars(String s) {
            for (int i = 0; i < s.length(); i++) {
                out.writeChar(s.charAt(i));
            }
        }

        @Override
        public void writeUTF(String s) {
            throw new UnsupportedOperationException("jute writes no modified UTF-8");
        }
    }
}
