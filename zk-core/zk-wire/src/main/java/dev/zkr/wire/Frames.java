package dev.zkr.wire;

import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;

/** Installs the framing and codec handlers of the protocol: 4-byte length prefix, then one Kryo message. */
public final class Frames {

    private Frames() {
    }

    /** Adds framing (with the given inbound frame limit) and the message codec to a pipeline. */
    public static void install(ChannelPipeline pipeline, int maxInboundFrame) {
        installFraming(pipeline, maxInboundFrame);
        pipeline.addLast("messageDecoder", MessageCodec.Decoder.INSTANCE);
        pipeline.addLast("messageEncoder", MessageCodec.FramedEncoder.INSTANCE);
    }

    /**
     * Adds the inbound framing only ("frameDecoder": 4-byte length prefix, frames above the limit fail with a
     * {@code TooLongFrameException}); for ports with their own codec (the peer port, with a {@link KryoCodec}).
     */
    public static void installFraming(ChannelPipeline pipeline, int maxInboundFrame) {
        pipeline.addLast("frameDecoder", new LengthFieldBasedFrameDecoder(maxInboundFrame, 0, 4, 0, 4));
    }
}
