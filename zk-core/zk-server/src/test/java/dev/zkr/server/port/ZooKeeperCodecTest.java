package dev.zkr.server.port;

import dev.zkr.server.zookeeper.ZooKeeperTranslator;
import dev.zkr.wire.Message;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.DecoderException;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The ZooKeeper codec's failures reach the handler after it (the connection handler, which logs one line and closes)
 * exactly once: a frame that is no handshake, and a reply the translator cannot encode (a server bug); after either,
 * nothing more is translated, and the connection handler's ProtocolError closes the connection.
 */
class ZooKeeperCodecTest {

    /** What reaches the handler after the codec. */
    private static final class Recorder extends ChannelInboundHandlerAdapter {
        final List<Object> read = new ArrayList<>();
        final List<Throwable> failures = new ArrayList<>();

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            read.add(msg);
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            failures.add(cause);
        }
    }

    @Test
    void aReplyTheTranslatorCannotEncodeIsOneFailureThenTheClose() {
        Recorder r = new Recorder();
        EmbeddedChannel ch = new EmbeddedChannel(new ZooKeeperCodec(new ZooKeeperTranslator()), r);
        // a reply with no request in flight: the translator's IllegalStateException
        ch.writeOutbound(new Message.Reply(7, 1, 0, null, null));
        assertEquals(1, r.failures.size());
        assertInstanceOf(DecoderException.class, r.failures.get(0));
        assertInstanceOf(IllegalStateException.class, r.failures.get(0).getCause());
        assertNull(ch.readOutbound(), "nothing written for the reply");
        ch.writeOutbound(new Message.Reply(8, 1, 0, null, null));
        assertEquals(1, r.failures.size(), "later messages are dropped, not failed again");
        ch.writeAndFlush(new Message.ProtocolError(-5, "bad"));
        ch.runPendingTasks();
        assertFalse(ch.isOpen(), "the connection handler's ProtocolError closes the connection");
    }

    @Test
    void aFirstFrameThatIsNoHandshakeIsOneFailureAndLaterFramesAreDropped() {
        Recorder r = new Recorder();
        EmbeddedChannel ch = new EmbeddedChannel(new ZooKeeperCodec(new ZooKeeperTranslator()), r);
        ByteBuf bad = Unpooled.wrappedBuffer(new byte[] {0, 0, 0, 1, 0, 0, 0, 4});
        ch.writeInbound(bad);
        ByteBuf later = Unpooled.wrappedBuffer(new byte[] {0, 0, 0, 0});
        ch.writeInbound(later);
        assertEquals(1, r.failures.size());
        assertTrue(r.read.isEmpty());
        assertEquals(0, bad.refCnt(), "the frame is released");
        assertEquals(0, later.refCnt(), "the dropped frame is released");
    }
}
