package dev.zkr.server.zookeeper;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** Length-prefixed frames: split however the bytes arrive, bounded, a bad length a typed error. */
class ZooKeeperFrameDecoderTest {

    private static byte[] bytes(ByteBuf b) {
        byte[] a = new byte[b.readableBytes()];
        b.readBytes(a);
        b.release();
        return a;
    }

    @Property
    void framesComeOutWholeHoweverTheBytesArrive(@ForAll @Size(min = 1, max = 6) List<@Size(max = 300) byte[]> frames,
                                                 @ForAll @IntRange(min = 1, max = 64) int chunk) {
        ByteBuf wire = Unpooled.buffer();
        for (byte[] f : frames) {
            wire.writeInt(f.length).writeBytes(f);
        }
        EmbeddedChannel ch = new EmbeddedChannel(new ZooKeeperFrameDecoder(300));
        while (wire.isReadable()) {
            ch.writeInbound(wire.readRetainedSlice(Math.min(chunk, wire.readableBytes())));
        }
        List<byte[]> out = new ArrayList<>();
        for (ByteBuf b; (b = ch.readInbound()) != null; ) {
            out.add(bytes(b));
        }
        assertEquals(frames.size(), out.size());
        for (int i = 0; i < frames.size(); i++) {
            assertArrayEquals(frames.get(i), out.get(i));
        }
        assertFalse(ch.finish());
    }

    @Test
    void aFrameOfExactlyTheLimitPassesOneByteMoreDoesNot() {
        EmbeddedChannel ch = new EmbeddedChannel(new ZooKeeperFrameDecoder(100));
        ch.writeInbound(Unpooled.buffer().writeInt(100).writeBytes(new byte[100]));
        assertEquals(100, bytes(ch.readInbound()).length);
        ch.writeInbound(Unpooled.buffer().writeInt(0));
        assertEquals(0, bytes(ch.readInbound()).length, "an empty frame is a frame (ZooKeeper reads it too)");
        ZooKeeperProtocolException e = assertThrows(ZooKeeperProtocolException.class,
                () -> ch.writeInbound(Unpooled.buffer().writeInt(101)));
        assertEquals(ZooKeeperProtocolException.Kind.BAD_LENGTH, e.kind());
        // what follows is discarded, not read as frames
        ch.writeInbound(Unpooled.buffer().writeInt(4).writeInt(7));
        assertNull(ch.readInbound());
    }

    @Test
    void aNegativeLengthIsABadLength() {
        EmbeddedChannel ch = new EmbeddedChannel(new ZooKeeperFrameDecoder(1 << 20));
        ZooKeeperProtocolException e = assertThrows(ZooKeeperProtocolException.class,
                () -> ch.writeInbound(Unpooled.buffer().writeInt(-1).writeInt(0)));
        assertEquals(ZooKeeperProtocolException.Kind.BAD_LENGTH, e.kind());
    }

    @Test
    void anOversizedLengthFailsBeforeItsBytesArrive() {
        EmbeddedChannel ch = new EmbeddedChannel(new ZooKeeperFrameDecoder(0xfffff));
        ZooKeeperProtocolException e = assertThrows(ZooKeeperProtocolException.class,
                () -> ch.writeInbound(Unpooled.buffer().writeInt(0x100000)));
        assertEquals("frame length 1048576 out of range (0..1048575)", e.getMessage());
    }
}
