package dev.zkr.wire;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.codec.MessageToByteEncoder;
import io.netty.handler.codec.MessageToMessageDecoder;
import io.netty.util.concurrent.FastThreadLocal;

import java.util.List;

/**
 * Turns one frame (without its length prefix) into one {@link Message} and back, with the Kryo of
 * {@link WireKryo}. Decoding fails with {@link MalformedMessageException} on unknown class ids, truncated or
 * trailing bytes and lengths that exceed the frame. Both handlers are stateless and {@code @Sharable}.
 */
public final class MessageCodec {

    private static final FastThreadLocal<Kryo> KRYO = new FastThreadLocal<>() {
        @Override
        protected Kryo initialValue() {
            return WireKryo.create();
        }
    };
    private static final FastThreadLocal<Output> OUTPUT = new FastThreadLocal<>() {
        @Override
        protected Output initialValue() {
            return new Output(4096, -1);
        }
    };

    private MessageCodec() {
    }

    /** Encodes a message to bytes (without the length prefix). */
    public static byte[] encode(Message message) {
        return serialize(message).toBytes();
    }

    /** The message written to this thread's reusable buffer, which stays valid until the thread's next write. */
    private static Output serialize(Message message) {
        Output output = OUTPUT.get();
        output.reset();
        KRYO.get().writeClassAndObject(output, message);
        return output;
    }

    /** Decodes the bytes of one frame; throws {@link MalformedMessageException} if they are not one valid message. */
    public static Message decode(byte[] frame) {
        Input input = new Input(frame);
        Object decoded;
        try {
            decoded = KRYO.get().readClassAndObject(input);
        } catch (RuntimeException e) { // KryoException and anything a hostile frame provokes in a serializer
            throw new MalformedMessageException("undecodable frame of " + frame.length + " bytes: " + firstLine(e));
        }
        if (!(decoded instanceof Message message)) {
            throw new MalformedMessageException("frame does not hold a message: "
                    + (decoded == null ? "null" : decoded.getClass().getSimpleName()));
        }
        if (input.position() != frame.length) {
            throw new MalformedMessageException((frame.length - input.position()) + " trailing bytes after "
                    + message.getClass().getSimpleName());
        }
        return message;
    }

    private static String firstLine(Exception e) {
        String m = String.valueOf(e.getMessage());
        int nl = m.indexOf('\n');
        return nl < 0 ? m : m.substring(0, nl);
    }

    /** Largest frame a peer may send for a given node size limit: the data plus room for paths and headers. */
    public static int maxFrameSize(int maxDataSize) {
        return maxDataSize + 256 * 1024;
    }

    /** Netty encoder: Message → frame bytes. Put a {@code LengthFieldPrepender(4)} before it. */
    @ChannelHandler.Sharable
    public static final class Encoder extends MessageToByteEncoder<Message> {
        public static final Encoder INSTANCE = new Encoder();

        @Override
        protected void encode(ChannelHandlerContext ctx, Message msg, ByteBuf out) {
            Output output = serialize(msg);
            out.writeBytes(output.getBuffer(), 0, output.position());
        }
    }

    /**
     * Netty encoder: Message → 4-byte length prefix + frame bytes, in one buffer (what {@link Encoder} behind a
     * {@code LengthFieldPrepender(4)} writes, with one buffer and one handler less per message).
     */
    @ChannelHandler.Sharable
    public static final class FramedEncoder extends MessageToByteEncoder<Message> {
        public static final FramedEncoder INSTANCE = new FramedEncoder();

        @Override
        protected void encode(ChannelHandlerContext ctx, Message msg, ByteBuf out) {
            Output output = serialize(msg);
            int length = output.position();
            out.ensureWritable(4 + length);
            out.writeInt(length);
            out.writeBytes(output.getBuffer(), 0, length);
        }
    }

    /** Netty decoder: frame bytes → Message. Put a {@code LengthFieldBasedFrameDecoder} after it. */
    @ChannelHandler.Sharable
    public static final class Decoder extends MessageToMessageDecoder<ByteBuf> {
        public static final Decoder INSTANCE = new Decoder();

        @Override
        protected void decode(ChannelHandlerContext ctx, ByteBuf frame, List<Object> out) {
            byte[] bytes = new byte[frame.readableBytes()];
            frame.readBytes(bytes);
            try {
                out.add(MessageCodec.decode(bytes));
            } catch (MalformedMessageException e) {
                throw new DecoderException(e);
            }
        }
    }
}
