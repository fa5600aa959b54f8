package dev.zkr.server.peer;

import dev.zkr.consensus.Entry;
import dev.zkr.consensus.EpochTable;
import dev.zkr.consensus.ReplicaMessage;
import dev.zkr.consensus.SyncMode;
import dev.zkr.consensus.Zxid;
import dev.zkr.wire.Frames;
import dev.zkr.wire.MalformedMessageException;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.codec.TooLongFrameException;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PeerCodecTest {

    /** One message of every consensus type, plus Hello. */
    static List<Object> everyType() {
        EpochTable table = EpochTable.of(List.of(new Entry(Zxid.of(1, 0), new byte[0]),
                new Entry(Zxid.of(1, 7), new byte[0]), new Entry(Zxid.of(3, 2), new byte[0])));
        List<Object> all = new ArrayList<>(List.of(
                new Hello(PeerTransport.PROTOCOL_VERSION, 0x1234_5678_9abcL, 2),
                new ReplicaMessage.PreVote(4, Zxid.of(3, 9)),
                new ReplicaMessage.PreVoteAck(3, 4, true),
                new ReplicaMessage.Vote(4, Zxid.of(3, 9), true),
                new ReplicaMessage.Vote(5, Zxid.NONE),
                new ReplicaMessage.TimeoutNow(6),
                new ReplicaMessage.VoteAck(4, false),
                new ReplicaMessage.FollowerInfo(4, 17, Zxid.of(3, 2), Zxid.of(1, 7), table),
                new ReplicaMessage.FollowerInfo(4, 18, 0, 0, EpochTable.EMPTY),
                new ReplicaMessage.SyncStart(4, 17, SyncMode.DIFF, Zxid.of(1, 7)),
                new ReplicaMessage.SyncStart(4, 17, SyncMode.TRUNC, Zxid.of(1, 7)),
                new ReplicaMessage.SyncStart(4, 17, SyncMode.SNAP, Zxid.of(1, 7)),
                new ReplicaMessage.Propose(4, Zxid.of(4, 0), Zxid.of(4, 1), new byte[] {1, 2, 3}),
                new ReplicaMessage.Propose(4, Zxid.of(3, 2), Zxid.of(4, 0), new byte[0]),
                new ReplicaMessage.Ack(4, Zxid.of(4, 1)),
                new ReplicaMessage.Commit(4, Zxid.of(4, 1)),
                new ReplicaMessage.LeaderDurable(4, Zxid.of(4, 1)),
                new ReplicaMessage.Heartbeat(4, Zxid.of(4, 1), 99, 17, Zxid.of(4, 1)),
                new ReplicaMessage.HeartbeatAck(4, 99, Zxid.of(4, 1)),
                new ReplicaMessage.HeartbeatAck(5, -1)));
        return all;
    }

    static void assertSameMessage(Object expected, Object actual) {
        if (expected instanceof ReplicaMessage.Propose p && actual instanceof ReplicaMessage.Propose q) {
            assertEquals(p.toString(), q.toString());
            assertArrayEquals(p.payload(), q.payload());
        } else {
            assertEquals(expected, actual);
        }
    }

    @Test
    void everyMessageTypeRoundTripsThroughTheFramingAndDecoder() {
        EmbeddedChannel ch = channel(1 << 20);
        for (Object m : everyType()) {
            ByteBuf frame = PeerKryo.CODEC.encodeFramed(ch.alloc(), m);
            ch.writeInbound(frame);
            assertSameMessage(m, ch.readInbound());
        }
        // every consensus message type is covered
        long types = everyType().stream().map(Object::getClass).filter(c -> c.getEnclosingClass() == ReplicaMessage.class)
                .distinct().count();
        assertEquals(ReplicaMessage.class.getPermittedSubclasses().length, types);
    }

    @Test
    void framesSplitAcrossReadsAndBatchedInOneReadDecode() {
        EmbeddedChannel ch = channel(1 << 20);
        ByteBuf all = Unpooled.buffer();
        for (Object m : everyType()) {
            PeerKryo.CODEC.encodeFramed(m, all);
        }
        byte[] bytes = new byte[all.readableBytes()];
        all.readBytes(bytes);
        for (int i = 0; i < bytes.length; i += 7) {
            ch.writeInbound(Unpooled.wrappedBuffer(Arrays.copyOfRange(bytes, i, Math.min(bytes.length, i + 7))));
        }
        for (Object m : everyType()) {
            assertSameMessage(m, ch.readInbound());
        }
    }

    @Test
    void unknownClassIdTruncatedAndTrailingBytesAreMalformed() {
        byte[] ack = PeerKryo.CODEC.encode(new ReplicaMessage.Ack(4, Zxid.of(4, 1)));
        assertThrows(MalformedMessageException.class, () -> PeerKryo.CODEC.decode(Arrays.copyOf(ack, 3)));
        assertThrows(MalformedMessageException.class, () -> PeerKryo.CODEC.decode(Arrays.copyOf(ack, ack.length + 1)));
        assertThrows(MalformedMessageException.class, () -> PeerKryo.CODEC.decode(new byte[] {(byte) 0xf0, 1}));
        // a client-port class id (150, CreateRequest) means nothing on the peer port
        assertThrows(MalformedMessageException.class, () -> PeerKryo.CODEC.decode(new byte[] {(byte) 0x97, 1, 1}));
        assertThrows(MalformedMessageException.class, () -> PeerKryo.CODEC.decode(new byte[0]));
    }

    @Test
    void hostileLengthsAndDisorderedEpochTablesAreMalformed() {
        ReplicaMessage.FollowerInfo info = new ReplicaMessage.FollowerInfo(4, 1, 0, 0,
                EpochTable.of(List.of(new Entry(Zxid.of(1, 1), new byte[0]), new Entry(Zxid.of(2, 1), new byte[0]))));
        byte[] bytes = PeerKryo.CODEC.encode(info);
        // the table is written last (components by name: commitZxid, epoch, lastZxid, syncId, table): count, zxids
        byte[] disordered = bytes.clone();
        int tableStart = bytes.length - 1 - 2 * varLongSize(Zxid.of(1, 1));
        assertEquals(2, bytes[tableStart]);
        byte[] huge = Arrays.copyOf(bytes, tableStart + 5);
        huge[tableStart] = (byte) 0xff;
        huge[tableStart + 1] = (byte) 0xff;
        huge[tableStart + 2] = (byte) 0xff;
        huge[tableStart + 3] = (byte) 0xff;
        huge[tableStart + 4] = 0x07;
        assertThrows(MalformedMessageException.class, () -> PeerKryo.CODEC.decode(huge));
        // swap the two zxids: out of order
        int z = varLongSize(Zxid.of(1, 1));
        System.arraycopy(bytes, tableStart + 1 + z, disordered, tableStart + 1, z);
        System.arraycopy(bytes, tableStart + 1, disordered, tableStart + 1 + z, z);
        assertThrows(MalformedMessageException.class, () -> PeerKryo.CODEC.decode(disordered));
        assertEquals(info, PeerKryo.CODEC.decode(bytes));
    }

    @Test
    void decoderFailuresSurfaceAsDecoderExceptionsAndOversizedFramesAsTooLong() {
        EmbeddedChannel ch = channel(64);
        ByteBuf garbage = Unpooled.buffer().writeInt(3).writeBytes(new byte[] {(byte) 0xf0, 1, 2});
        DecoderException e = assertThrows(DecoderException.class, () -> ch.writeInbound(garbage));
        assertTrue(e.getCause() instanceof MalformedMessageException, e.toString());
        EmbeddedChannel small = channel(64);
        ByteBuf big = PeerKryo.CODEC.encodeFramed(small.alloc(),
                new ReplicaMessage.Propose(1, 0, Zxid.of(1, 1), new byte[100]));
        assertThrows(TooLongFrameException.class, () -> small.writeInbound(big));
    }

    private static int varLongSize(long v) {
        int n = 1;
        while ((v >>>= 7) != 0) {
            n++;
        }
        return n;
    }

    private static EmbeddedChannel channel(int maxFrame) {
        EmbeddedChannel ch = new EmbeddedChannel();
        Frames.installFraming(ch.pipeline(), maxFrame);
        ch.pipeline().addLast(PeerKryo.CODEC.decoder());
        return ch;
    }
}
