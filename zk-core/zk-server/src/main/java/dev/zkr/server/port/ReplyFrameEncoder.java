package dev.zkr.server.port;

import dev.zkr.server.ProblemLog;
import dev.zkr.client.ZkException;
import dev.zkr.wire.Message;
import dev.zkr.wire.MessageCodec;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.MessageToByteEncoder;

/**
 * The client port's encoder: writes each message as a length-prefixed frame, except a reply larger than a client
 * accepts ({@link MessageCodec#maxFrameSize} of the server's {@code maxDataSize}, the limit every client widens to
 * at its handshake) — e.g. {@code getChildren} of a node with very many children. Sent, such a frame would make
 * the client drop the connection (and with it every request in flight), reconnect and, when the caller retries,
 * drop it again; instead the request alone fails with {@code DATA_TOO_LARGE} and a message that says why, and the
 * connection stays. (ZooKeeper sends it, and its client fails with "Packet len is out of range".)
 */
@ChannelHandler.Sharable
final class ReplyFrameEncoder extends MessageToByteEncoder<Message> {

    static final String OVERSIZED_REPLIES = "replies over the frame limit";

    private final int maxFrame;
    private final ProblemLog problems;

    ReplyFrameEncoder(int maxFrame, ProblemLog problems) {
        this.maxFrame = maxFrame;
        this.problems = problems;
    }

    @Override
    protected void encode(ChannelHandlerContext ctx, Message msg, ByteBuf out) {
        int start = out.writerIndex();
        MessageCodec.encodeFramed(msg, out);
        int length = out.writerIndex() - start - 4;
        if (length > maxFrame && msg instanceof Message.Reply r) {
            out.writerIndex(start);
            MessageCodec.encodeFramed(new Message.Reply(r.xid(), r.zxid(), ZkException.Code.DATA_TOO_LARGE.intValue(),
                    null, "the reply is " + length + " bytes, over the " + maxFrame + " bytes a client accepts "
                    + "(maxDataSize + 256 KiB); e.g. too many children to list at once"), out);
            problems.warn(OVERSIZED_REPLIES, "reply of {} bytes to {} refused: over the frame limit of {} bytes",
                    length, ctx.channel().remoteAddress(), maxFrame);
        }
    }
}
