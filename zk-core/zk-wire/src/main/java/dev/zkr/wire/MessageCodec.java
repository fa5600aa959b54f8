package dev.zkr.wire;

import com.esotericsoftware.kryo.io.Output;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.codec.MessageToByteEncoder;
import io.netty.handler.codec.MessageToMessageDecoder;

import java.util.List;

/**
 * Turns one frame (without its length prefix) into one {@link Message} and back, with the Kryo of
 * {@link WireKryo} (through a {@link KryoCodec}). Decoding fails with {@link MalformedMessageException} on unknown
 * class ids, truncated or trailing bytes and lengths that exceed the frame. Both handlers are stateless and {@code @Sharable}.
 */
public final class MessageCodec {

    private static final KryoCodec<Message> CODEC = new KryoCodec<>(WireKryo::create, Message.class);

    private MessageCodec() {
    }

    /** Encodes a message to bytes (without the length prefix). */
    public static byte[] encode(Message message) {
        return CODEC.encode(message);
    }

    /** Decodes the bytes of one frame; throws {@link MalformedMessageException} if they are not one valid message. */
    public static Message decode(byte[] frame) {
        return CODEC.decode(frame);
    }

    /** Appends the 4-byte length prefix and the message's bytes to {@code out} (what {@link FramedEncoder} writes). */
    public static void encodeFramed(Message message, ByteBuf out) {
        CODEC.encodeFramed(message, out);
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
            Output output = CODEC.serialize(msg);
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
            CODEC.encodeFramed(msg, out);
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
                out.add(CODEC.decode(bytes));
            } catch (MalformedMessageException e) {
                throw new DecoderException(e);
            }
        }
    }
}
