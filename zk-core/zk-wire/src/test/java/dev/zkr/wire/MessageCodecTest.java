package dev.zkr.wire;

import dev.zkr.client.ClientInfo;
import dev.zkr.client.CreateMode;
import dev.zkr.client.WatcherType;
import dev.zkr.client.Op;
import dev.zkr.client.OpResult;
import dev.zkr.client.Stat;
import dev.zkr.client.WatchedEvent;
import dev.zkr.client.ZkException;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.codec.TooLongFrameException;
import org.junit.jupiter.api.Test;

import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

class MessageCodecTest {

    private static final Stat STAT = new Stat(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11);

    @Test
    void roundTripsEveryKindOfMessage() {
        Message[] messages = {
                new Message.ConnectRequest(Message.PROTOCOL_VERSION, 0, new byte[16], 10_000, 0),
                new Message.ConnectResponse(1, 42, new byte[]{1, 2}, 6000, 1 << 20),
                new Message.CreateRequest(7, "/a/b", new byte[]{1}, CreateMode.EPHEMERAL_SEQUENTIAL),
                new Message.MultiRequest(8, new Op[]{Op.create("/x", new byte[0], CreateMode.PERSISTENT),
                        Op.check("/x", 0), Op.delete("/x", -1), Op.setData("/y", null, 3)}),
                new Message.SetWatchesRequest(9, 5, new String[]{"/a"}, new String[0], null, new String[]{"/b"},
                        new String[0]),
                new Message.Reply(7, 100, 0, new Message.CreateBody("/a/b0000000001", STAT), null),
                new Message.Reply(8, 100, ZkException.Code.NO_NODE.intValue(), new Message.MultiBody(
                        new OpResult[]{new OpResult.ErrorResult(ZkException.Code.NO_NODE)}), "missing"),
                new Message.Reply(9, 100, 0, new Message.ChildrenBody(new String[]{"a", "é"}, STAT), null),
                new Message.WatchEvent(WatchedEvent.Type.NODE_DELETED, "/a", 99),
                // ZooKeeper 3.6+ requests and their bodies
                new Message.MultiReadRequest(10, new Op[]{Op.getData("/a"), Op.getChildren("/b")}),
                new Message.GetEphemeralsRequest(11, "/app"),
                new Message.GetAllChildrenNumberRequest(12, "/"),
                new Message.WhoAmIRequest(13),
                new Message.CheckWatchesRequest(14, "/w", WatcherType.PERSISTENT_RECURSIVE),
                new Message.RemoveWatchesRequest(15, "/w", WatcherType.PERSISTENT_RECURSIVE),
                new Message.Reply(10, 100, 0, new Message.MultiBody(new OpResult[]{
                        new OpResult.GetDataResult(new byte[]{1, 2}, STAT),
                        new OpResult.GetChildrenResult(java.util.List.of("x", "é")),
                        new OpResult.ErrorResult(ZkException.Code.NO_NODE)}), null),
                new Message.Reply(11, 100, 0, new Message.PathsBody(new String[]{"/app/e1"}), null),
                new Message.Reply(12, 100, 0, new Message.CountBody(3), null),
                new Message.Reply(13, 100, 0, new Message.ClientInfoBody(new ClientInfo[]{
                        new ClientInfo("ip", "127.0.0.1"), new ClientInfo("digest", "user")}), null),
        };
        for (Message m : messages) {
            Message back = MessageCodec.decode(MessageCodec.encode(m));
            assertEquals(m.getClass(), back.getClass());
            assertArrayEquals(MessageCodec.encode(m), MessageCodec.encode(back));
        }
        Message.Reply reply = (Message.Reply) MessageCodec.decode(MessageCodec.encode(messages[5]));
        assertEquals(STAT, ((Message.CreateBody) reply.body()).stat());
        Message.Reply multiRead = (Message.Reply) MessageCodec.decode(MessageCodec.encode(messages[15]));
        OpResult[] results = ((Message.MultiBody) multiRead.body()).results();
        assertEquals(STAT, ((OpResult.GetDataResult) results[0]).stat());
        assertEquals(java.util.List.of("x", "é"), ((OpResult.GetChildrenResult) results[1]).children());
        Message.Reply who = (Message.Reply) MessageCodec.decode(MessageCodec.encode(messages[18]));
        assertEquals(new ClientInfo("digest", "user"), ((Message.ClientInfoBody) who.body()).infos()[1]);
        assertEquals(WatcherType.PERSISTENT_RECURSIVE,
                ((Message.CheckWatchesRequest) MessageCodec.decode(MessageCodec.encode(messages[13]))).type());
    }

    @Test
    void rejectsGarbageUnknownIdsAndTrailingBytes() {
        Random random = new Random(1);
        for (int i = 0; i < 2000; i++) {
            byte[] garbage = new byte[1 + random.nextInt(64)];
            random.nextBytes(garbage);
            try {
                MessageCodec.decode(garbage);
            } catch (MalformedMessageException expected) {
                // fine: garbage is refused; anything else thrown fails the test
            }
        }
        assertThrows(MalformedMessageException.class, () -> MessageCodec.decode(new byte[]{(byte) 0xF0, 0x7F}));
        byte[] ok = MessageCodec.encode(new Message.PingRequest(1));
        byte[] longer = java.util.Arrays.copyOf(ok, ok.length + 1);
        assertThrows(MalformedMessageException.class, () -> MessageCodec.decode(longer));
        // a hostile length prefix in a byte array must not allocate what the frame does not hold
        byte[] create = MessageCodec.encode(new Message.CreateRequest(1, "/a", new byte[4], CreateMode.PERSISTENT));
        byte[] truncated = java.util.Arrays.copyOf(create, create.length - 3);
        assertThrows(MalformedMessageException.class, () -> MessageCodec.decode(truncated));
    }

    @Test
    void pipelineFramesAndRefusesOversizedFrames() {
        EmbeddedChannel channel = new EmbeddedChannel();
        Frames.install(channel.pipeline(), 1024);
        channel.writeOutbound(new Message.PingRequest(3));
        ByteBuf framed = Unpooled.buffer();
        for (ByteBuf part; (part = channel.readOutbound()) != null; ) {
            framed.writeBytes(part);
            part.release();
        }
        channel.writeInbound(framed);
        assertInstanceOf(Message.PingRequest.class, channel.readInbound());

        ByteBuf huge = Unpooled.buffer().writeInt(4096).writeBytes(new byte[4096]);
        assertThrows(TooLongFrameException.class, () -> channel.writeInbound(huge));
        ByteBuf junk = Unpooled.buffer().writeInt(3).writeBytes(new byte[]{(byte) 0xF0, 0x7F, 0x01});
        DecoderException e = assertThrows(DecoderException.class, () -> channel.writeInbound(junk));
        assertInstanceOf(MalformedMessageException.class, e.getCause());
    }

    @Test
    void framedEncoderWritesTheLengthPrefixThenTheMessage() {
        EmbeddedChannel channel = new EmbeddedChannel();
        Frames.install(channel.pipeline(), 1 << 20);
        Message m = new Message.Reply(7, 100, 0, new Message.CreateBody("/a/b0000000001", STAT), null);
        channel.writeOutbound(m);
        ByteBuf framed = Unpooled.buffer();
        for (ByteBuf part; (part = channel.readOutbound()) != null; ) {
            framed.writeBytes(part);
            part.release();
        }
        byte[] body = MessageCodec.encode(m);
        assertEquals(4 + body.length, framed.readableBytes());
        assertEquals(body.length, framed.readInt());
        byte[] rest = new byte[body.length];
        framed.readBytes(rest);
        assertArrayEquals(body, rest);
    }
}
