package dev.zkr.server.port;

import dev.zkr.server.zookeeper.ZooKeeperTranslator;
import dev.zkr.wire.Message;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.DecoderException;
import io.netty.util.ReferenceCountUtil;

/**
 * A ZooKeeper-protocol connection's codec, between its frame decoder and the connection handler, around one
 * {@link ZooKeeperTranslator}: each frame in becomes the {@link Message} the connection handler takes (or nothing,
 * when the translator drops it); each message out becomes ZooKeeper's frame, and the connection is closed once it is
 * written when the translator says so. Input it cannot take ({@code ZooKeeperProtocolException}) and a reply it
 * cannot encode (a server bug) go to the connection handler's {@code exceptionCaught}: one log line, the close.
 */
final class ZooKeeperCodec extends ChannelDuplexHandler {

    private final ZooKeeperTranslator translator;
    /** Decoding or encoding failed: the connection is being closed, nothing more is translated. */
    private boolean failed;

    ZooKeeperCodec(ZooKeeperTranslator translator) {
        this.translator = translator;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof ByteBuf frame)) {
            ctx.fireChannelRead(msg);
            return;
        }
        try {
            if (failed) {
                return;
            }
            Message m = translator.decode(frame);
            if (m != null) {
                ctx.fireChannelRead(m);
            }
        } catch (DecoderException e) { // ZooKeeperProtocolException: the connection handler logs and closes
            failed = true;
            ctx.fireExceptionCaught(e);
        } finally {
            frame.release();
        }
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (!(msg instanceof Message m)) {
            ctx.write(msg, promise);
            return;
        }
        if (failed && !(m instanceof Message.ProtocolError)) {
            promise.trySuccess(); // dropped: the connection is closing
            return;
        }
        ByteBuf out = ctx.alloc().ioBuffer();
        boolean close;
        try {
            close = translator.encode(m, out);
        } catch (RuntimeException e) { // IllegalStateException: a reply out of order or of the wrong kind
            out.release();
            ReferenceCountUtil.release(msg);
            failed = true;
            promise.trySuccess();
            ctx.fireExceptionCaught(new DecoderException("cannot answer as ZooKeeper: " + e.getMessage(), e));
            return;
        }
        if (close) {
            ChannelPromise p = promise.unvoid();
            ctx.write(out, p);
            p.addListener(ChannelFutureListener.CLOSE);
        } else {
            ctx.write(out, promise);
        }
    }
}
