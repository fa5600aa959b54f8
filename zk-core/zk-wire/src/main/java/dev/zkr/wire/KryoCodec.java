package dev.zkr.wire;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.codec.MessageToMessageDecoder;
import io.netty.util.concurrent.FastThreadLocal;

import java.util.List;
import java.util.function.Supplier;

/**
 * One frame (without its length prefix) ↔ one object of type {@code T}, with a per-thread Kryo from a factory
 * (normally built on {@link SafeKryo}). Decoding fails with {@link MalformedMessageException} on unknown class ids,
 * truncated or trailing bytes, lengths that exceed the frame and objects that are not a {@code T}. Thread-safe.
 * Shared by the client port ({@link MessageCodec}) and the peer port.
 */
public final class KryoCodec<T> {

    private final FastThreadLocal<Kryo> kryo;
    private final FastThreadLocal<Output> output = new FastThreadLocal<>() {
        @Override
        protected Output initialValue() {
            return new Output(4096, -1);
        }
    };
    private final Class<T> type;
    private final Decoder decoder = new Decoder();

    public KryoCodec(Supplier<Kryo> factory, Class<T> type) {
        this.type = type;
        this.kryo = new FastThreadLocal<>() {
            @Override
            protected Kryo initialValue() {
                return factory.get();
            }
        };
    }

    /** Encodes an object to bytes (without the length prefix). */
    public byte[] encode(T message) {
        return serialize(message).toBytes();
    }

    /** Writes the 4-byte length prefix and the object's bytes to {@code out}. */
    public void encodeFramed(T message, ByteBuf out) {
        Output o = serialize(message);
        int length = o.position();
        out.ensureWritable(4 + length);
        out.writeInt(length);
        out.writeBytes(o.getBuffer(), 0, length);
    }

    /** A new buffer holding the 4-byte length prefix and the object's bytes (the caller owns it). */
    public ByteBuf encodeFramed(ByteBufAllocator alloc, T message) {
        Output o = serialize(message);
        int length = o.position();
        ByteBuf out = alloc.buffer(4 + length);
        out.writeInt(length);
        out.writeBytes(o.getBuffer(), 0, length);
        return out;
    }

    /** The object written to this thread's reusable buffer, which stays valid until the thread's next write. */
    Output serialize(T message) {
        Output o = output.get();
        o.reset();
        kryo.get().writeClassAndObject(o, message);
        return o;
    }

    /** Decodes the bytes of one frame; throws {@link MalformedMessageException} if they are not one valid object. */
    public T decode(byte[] frame) {
        Input input = new Input(frame);
        Object decoded;
        try {
            decoded = kryo.get().readClassAndObject(input);
        } catch (RuntimeException e) { // KryoException and anything a hostile frame provokes in a serializer
            throw new MalformedMessageException("undecodable frame of " + frame.length + " bytes: " + firstLine(e));
        }
        if (!type.isInstance(decoded)) {
            throw new MalformedMessageException("frame does not hold a message: "
                    + (decoded == null ? "null" : decoded.getClass().getSimpleName()));
        }
        if (input.position() != frame.length) {
            throw new MalformedMessageException((frame.length - input.position()) + " trailing bytes after "
                    + decoded.getClass().getSimpleName());
        }
        return type.cast(decoded);
    }

    /** Netty decoder (stateless, shared): frame bytes → T, a {@link DecoderException} around the failure. */
    public ChannelHandler decoder() {
        return decoder;
    }

    private static String firstLine(Exception e) {
        String m = String.valueOf(e.getMessage());
        int nl = m.indexOf('\n');
        return nl < 0 ? m : m.substring(0, nl);
    }

    @ChannelHandler.Sharable
    private final class Decoder extends MessageToMessageDecoder<ByteBuf> {
        @Override
        protected void decode(ChannelHandlerContext ctx, ByteBuf frame, List<Object> out) {
            byte[] bytes = new byte[frame.readableBytes()];
            frame.readBytes(bytes);
            try {
                out.add(KryoCodec.this.decode(bytes));
            } catch (MalformedMessageException e) {
                throw new DecoderException(e);
            }
        }
    }
}
