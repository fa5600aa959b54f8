package dev.zkr.server.port;

import dev.zkr.server.zookeeper.FirstFrame;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;

import java.util.List;

/**
 * Tells a new connection's protocol from its first bytes ({@link FirstFrame#classify}, after TLS, if any, is taken
 * off) and sets its pipeline up for it: zkr's own codec (then it leaves, and the pipeline is exactly the native one),
 * ZooKeeper's, or a four-letter word (then it stays, discarding whatever else the client sends).
 */
final class ProtocolSwitch extends ByteToMessageDecoder {

    /** What each protocol needs installed, before the connection handler. */
    interface Protocols {
        void installNative(ChannelHandlerContext ctx);

        void installZooKeeper(ChannelHandlerContext ctx);

        /** Answers the word and closes the connection. */
        void answerWord(ChannelHandlerContext ctx, String word);
    }

    private final Protocols protocols;
    private boolean word;

    ProtocolSwitch(Protocols protocols) {
        this.protocols = protocols;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        if (word) {
            in.skipBytes(in.readableBytes());
            return;
        }
        switch (FirstFrame.classify(in)) {
            case NEED_MORE -> {
            }
            case NATIVE -> {
                protocols.installNative(ctx);
                ctx.pipeline().remove(this); // hands the bytes read so far on to the new frame decoder
            }
            case ZOOKEEPER -> {
                protocols.installZooKeeper(ctx);
                ctx.pipeline().remove(this);
            }
            case FOUR_LETTER_WORD -> {
                word = true;
                String w = FirstFrame.fourLetterWord(in);
                in.skipBytes(in.readableBytes());
                ctx.channel().config().setAutoRead(false); // as ZooKeeper: nothing more is read from it
                // a client may shut its side down after the word (ZooKeeper's FourLetterWordMain does): keep ours
                // open until the answer, which is written once gathered, is out
                ctx.channel().config().setOption(io.netty.channel.ChannelOption.ALLOW_HALF_CLOSURE, true);
                protocols.answerWord(ctx, w);
            }
        }
    }
}
