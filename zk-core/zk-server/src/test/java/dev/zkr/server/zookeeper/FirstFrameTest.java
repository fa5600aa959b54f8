package dev.zkr.server.zookeeper;

import dev.zkr.client.CreateMode;
import dev.zkr.wire.Message;
import dev.zkr.wire.MessageCodec;
import dev.zkr.wire.tls.TlsRecords;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The first-frame rule, both ways: every ZooKeeper handshake is ZOOKEEPER, every zkr first frame (whatever message
 * it holds) NATIVE, every four-letter word FOUR_LETTER_WORD, and none of them looks like TLS to the detector that
 * runs before (nor is a real TLS ClientHello ZOOKEEPER).
 */
class FirstFrameTest {

    private static ByteBuf framed(ByteBuf frame) {
        return Unpooled.buffer().writeInt(frame.readableBytes()).writeBytes(frame);
    }

    private static FirstFrame.Kind classify(ByteBuf in) {
        int reader = in.readerIndex();
        int readable = in.readableBytes();
        FirstFrame.Kind k = FirstFrame.classify(in);
        assertEquals(reader, in.readerIndex(), "classify consumed bytes");
        assertEquals(readable, in.readableBytes());
        return k;
    }

    @Property
    void everyZooKeeperHandshakeIsZooKeeper(@ForAll long lastZxid, @ForAll int timeOut, @ForAll long sessionId,
                                            @ForAll @Size(max = 40) byte[] passwd, @ForAll boolean readOnly,
                                            @ForAll boolean withReadOnlyByte) {
        ByteBuf in = framed(withReadOnlyByte ? ApacheWire.connect(lastZxid, timeOut, sessionId, passwd, readOnly)
                : ApacheWire.connectWithoutReadOnly(lastZxid, timeOut, sessionId, passwd));
        assertEquals(FirstFrame.Kind.ZOOKEEPER, classify(in));
        assertFalse(TlsRecords.looksLikeTls(in));
        // and with only the decisive bytes arrived
        assertEquals(FirstFrame.Kind.ZOOKEEPER, classify(in.slice(0, FirstFrame.DECISIVE)));
    }

    @Test
    void aNullPasswordHandshakeIsZooKeeperToo() {
        assertEquals(FirstFrame.Kind.ZOOKEEPER, classify(framed(ApacheWire.connect(0, 4000, 0, null, false))));
    }

    @Property
    void everyNativeHandshakeIsNative(@ForAll long sessionId, @ForAll @Size(max = 40) byte[] password,
                                      @ForAll int timeout, @ForAll long lastZxid, @ForAll int version) {
        ByteBuf in = Unpooled.buffer();
        MessageCodec.encodeFramed(new Message.ConnectRequest(version, sessionId, password, timeout, lastZxid), in);
        assertEquals(FirstFrame.Kind.NATIVE, classify(in));
        assertFalse(TlsRecords.looksLikeTls(in));
        assertEquals(FirstFrame.Kind.NATIVE, classify(in.slice(0, FirstFrame.DECISIVE)));
    }

    @Test
    void anyNativeMessageAsAFirstFrameIsNative() {
        List<Message> messages = List.of(
                new Message.ConnectRequest(Message.PROTOCOL_VERSION, 0, null, 30_000, 0),
                new Message.PingRequest(0),
                new Message.CreateRequest(1, "/a", new byte[0], CreateMode.PERSISTENT),
                new Message.GetDataRequest(-2, "/", false),
                new Message.ProtocolError(-5, "x"),
                new Message.Reply(0, 0, 0, null, null),
                new Message.CloseSessionRequest(0));
        for (Message m : messages) {
            ByteBuf in = Unpooled.buffer();
            MessageCodec.encodeFramed(m, in);
            assertTrue(in.getByte(4) != 0, m + ": a Kryo class id is never written as 0");
            assertEquals(FirstFrame.Kind.NATIVE, classify(in), m.toString());
        }
    }

    @Test
    void fourLetterWordsAreFourLetterWords() {
        for (String w : List.of("conf", "cons", "crst", "dirs", "dump", "envi", "gtmk", "ruok", "stmk", "srst",
                "srvr", "stat", "wchc", "wchp", "wchs", "mntr", "isro", "hash")) {
            ByteBuf in = Unpooled.wrappedBuffer(w.getBytes(StandardCharsets.US_ASCII));
            assertEquals(FirstFrame.Kind.FOUR_LETTER_WORD, classify(in), w);
            assertEquals(w, FirstFrame.fourLetterWord(in));
            assertFalse(TlsRecords.looksLikeTls(in), w);
            // as nc sends it, with a newline after
            assertEquals(FirstFrame.Kind.FOUR_LETTER_WORD, classify(Unpooled.wrappedBuffer((w + "\n")
                    .getBytes(StandardCharsets.US_ASCII))));
        }
        ByteBuf telnet = Unpooled.buffer().writeInt(0xfff4fffd);
        assertEquals(FirstFrame.Kind.FOUR_LETTER_WORD, classify(telnet));
        assertEquals("telnet close", FirstFrame.fourLetterWord(telnet));
        assertEquals(FirstFrame.Kind.NATIVE, classify(Unpooled.wrappedBuffer("abcd".getBytes(StandardCharsets
                .US_ASCII))));
        assertNull(FirstFrame.fourLetterWord(Unpooled.wrappedBuffer(new byte[] {'r', 'u', 'o'})));
    }

    @Test
    void aTlsClientHelloIsNeverZooKeeper() throws Exception {
        SSLEngine engine = SSLContext.getDefault().createSSLEngine("localhost", 2181);
        engine.setUseClientMode(true);
        ByteBuffer out = ByteBuffer.allocate(engine.getSession().getPacketBufferSize());
        engine.wrap(ByteBuffer.allocate(0), out);
        out.flip();
        ByteBuf hello = Unpooled.wrappedBuffer(out);
        assertTrue(TlsRecords.looksLikeTls(hello));
        assertEquals(FirstFrame.Kind.NATIVE, classify(hello)); // never asked: the TLS detector takes it first
        for (int type = 20; type <= 23; type++) {
            for (int minor = 0; minor <= 4; minor++) {
                ByteBuf record = Unpooled.wrappedBuffer(new byte[] {(byte) type, 3, (byte) minor, 0, 0});
                assertTrue(TlsRecords.looksLikeTls(record));
                assertEquals(FirstFrame.Kind.NATIVE, classify(record));
            }
        }
    }

    @Property
    void startsWithoutEnoughBytesWait(@ForAll @Size(max = 3) byte[] start, @ForAll @IntRange(max = 255) int b1,
                                      @ForAll @IntRange(max = 255) int b2, @ForAll @IntRange(max = 255) int b3) {
        assertEquals(FirstFrame.Kind.NEED_MORE, classify(Unpooled.wrappedBuffer(start)));
        // four bytes starting with 0 (a frame length) need the fifth
        assertEquals(FirstFrame.Kind.NEED_MORE, classify(Unpooled.wrappedBuffer(
                new byte[] {0, (byte) b1, (byte) b2, (byte) b3})));
    }

    @Property
    void theFifthByteDecides(@ForAll @IntRange(max = 0xffffff) int length, @ForAll byte fifth) {
        ByteBuf in = Unpooled.buffer().writeInt(length).writeByte(fifth);
        assertEquals(fifth == 0 ? FirstFrame.Kind.ZOOKEEPER : FirstFrame.Kind.NATIVE, classify(in));
    }
}
