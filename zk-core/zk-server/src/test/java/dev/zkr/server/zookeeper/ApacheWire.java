package dev.zkr.server.zookeeper;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.apache.jute.BinaryInputArchive;
import org.apache.jute.BinaryOutputArchive;
import org.apache.jute.Record;
import org.apache.zookeeper.proto.ConnectRequest;
import org.apache.zookeeper.proto.ReplyHeader;
import org.apache.zookeeper.proto.RequestHeader;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The Apache client's side of the wire, with its own jute classes: frames as {@code ClientCnxn.Packet.createBB}
 * builds them (a 4-byte length, the RequestHeader unless it is the ConnectRequest, the record) and replies read as
 * {@code ClientCnxn.SendThread.readResponse} reads them (the header, then the response record only when err is 0).
 */
final class ApacheWire {

    static final byte[] ZERO_PASSWORD = new byte[16];

    private ApacheWire() {
    }

    /** The bytes of records as jute writes them, in order. */
    static byte[] bytes(Record... records) {
        ByteArrayOutputStream baos = new ByteArrayOutputStream();
        BinaryOutputArchive boa = BinaryOutputArchive.getArchive(baos);
        try {
            for (Record r : records) {
                if (r != null) {
                    r.serialize(boa, "record");
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return baos.toByteArray();
    }

    /** A whole frame, with its 4-byte length, as createBB writes it. */
    static ByteBuf framed(byte[] payload) {
        return Unpooled.buffer().writeInt(payload.length).writeBytes(payload);
    }

    /** A request frame without its length (what the frame decoder hands on). */
    static ByteBuf request(int xid, int type, Record record) {
        return Unpooled.wrappedBuffer(bytes(new RequestHeader(xid, type), record));
    }

    /** A 3.5–3.9 client's ConnectRequest (with the readOnly byte), without its length. */
    static ByteBuf connect(long lastZxidSeen, int timeOut, long sessionId, byte[] passwd, boolean readOnly) {
        return Unpooled.wrappedBuffer(bytes(new ConnectRequest(0, lastZxidSeen, timeOut, sessionId, passwd,
                readOnly)));
    }

    /** A client before 3.4's ConnectRequest (no readOnly byte), without its length. */
    static ByteBuf connectWithoutReadOnly(long lastZxidSeen, int timeOut, long sessionId, byte[] passwd) {
        byte[] with = bytes(new ConnectRequest(0, lastZxidSeen, timeOut, sessionId, passwd, false));
        return Unpooled.wrappedBuffer(with, 0, with.length - 1);
    }

    /** A new session's handshake, as a 3.9 client sends it first. */
    static ByteBuf newSession() {
        return connect(0, 30_000, 0, ZERO_PASSWORD, false);
    }

    /**
     * Reads one reply frame from {@code out} as the Apache client does: the header, then {@code response} if err is
     * 0 and one is expected; asserts the frame holds exactly that, nothing after it.
     */
    static ReplyHeader reply(ByteBuf out, Record response) {
        ByteBuffer frame = frame(out);
        BinaryInputArchive in = archive(frame);
        ReplyHeader h = new ReplyHeader();
        try {
            h.deserialize(in, "header");
            if (response != null && h.getErr() == 0) {
                response.deserialize(in, "response");
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        assertEquals(0, frame.remaining(), "bytes left in the reply frame after " + (response == null
                ? "the header" : response.getClass().getSimpleName()));
        return h;
    }

    /** The next frame's bytes (after its length), read off {@code out}. */
    static ByteBuffer frame(ByteBuf out) {
        assertTrue(out.readableBytes() >= 4, "no frame written");
        int length = out.readInt();
        assertTrue(length >= 0 && length <= out.readableBytes(), "frame length " + length);
        byte[] b = new byte[length];
        out.readBytes(b);
        return ByteBuffer.wrap(b);
    }

    static BinaryInputArchive archive(ByteBuffer frame) {
        return new BinaryInputArchive(new DataInputStream(new java.io.InputStream() {
            @Override
            public int read() {
                return frame.hasRemaining() ? frame.get() & 0xff : -1;
            }
        }));
    }
}
