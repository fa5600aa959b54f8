package dev.zkr.server.zookeeper;

import dev.zkr.client.ZkException;
import dev.zkr.wire.Message;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.Size;
import org.apache.jute.BinaryInputArchive;
import org.apache.zookeeper.compat.ProtocolManager;
import org.apache.zookeeper.proto.ConnectRequest;
import org.apache.zookeeper.proto.ConnectResponse;
import org.apache.zookeeper.proto.GetDataRequest;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The handshake both ways, checked against ZooKeeper's own {@code ProtocolManager} (which its server uses to read a
 * ConnectRequest and its client to read a ConnectResponse, with and without the readOnly byte).
 */
class HandshakeTest {

    private static ByteBuf copy(ByteBuf b) {
        return b.copy();
    }

    @Property
    void decodesWhatZooKeepersServerDecodes(@ForAll long lastZxid, @ForAll int timeOut, @ForAll long sessionId,
                                            @ForAll @Size(max = 40) byte[] passwd, @ForAll boolean readOnly,
                                            @ForAll boolean withReadOnlyByte) throws Exception {
        ByteBuf frame = withReadOnlyByte ? ApacheWire.connect(lastZxid, timeOut, sessionId, passwd, readOnly)
                : ApacheWire.connectWithoutReadOnly(lastZxid, timeOut, sessionId, passwd);
        ByteBuffer nio = frame.nioBuffer();
        ConnectRequest theirs = new ProtocolManager().deserializeConnectRequest(ApacheWire.archive(nio));

        ZooKeeperTranslator t = new ZooKeeperTranslator();
        Message.ConnectRequest ours = assertInstanceOf(Message.ConnectRequest.class, t.decode(copy(frame)));
        assertEquals(Message.PROTOCOL_VERSION, ours.protocolVersion());
        assertEquals(theirs.getLastZxidSeen(), ours.lastZxidSeen());
        assertEquals(theirs.getTimeOut(), ours.sessionTimeoutMs());
        assertEquals(theirs.getSessionId(), ours.sessionId());
        assertArrayEquals(theirs.getPasswd(), ours.password());
        assertEquals(theirs.getReadOnly(), t.clientAcceptsReadOnly());
    }

    @Property
    void theResponseHasTheReadOnlyByteExactlyWhenTheRequestHadIt(@ForAll boolean withReadOnlyByte,
                                                                   @ForAll long sessionId, @ForAll int timeout,
                                                                   @ForAll @Size(16) byte[] password)
            throws Exception {
        ZooKeeperTranslator t = new ZooKeeperTranslator();
        t.decode(withReadOnlyByte ? ApacheWire.connect(0, 30_000, 0, ApacheWire.ZERO_PASSWORD, true)
                : ApacheWire.connectWithoutReadOnly(0, 30_000, 0, ApacheWire.ZERO_PASSWORD));
        ByteBuf out = Unpooled.buffer();
        assertFalse(t.encode(new Message.ConnectResponse(Message.PROTOCOL_VERSION, sessionId, password, timeout,
                1 << 20), out));
        ByteBuffer frame = ApacheWire.frame(out);
        assertEquals(withReadOnlyByte ? 4 + 4 + 8 + 4 + 16 + 1 : 4 + 4 + 8 + 4 + 16, frame.remaining());
        // as ClientCnxnSocket.readConnectResult reads it
        ProtocolManager client = new ProtocolManager();
        ConnectResponse r = client.deserializeConnectResponse(ApacheWire.archive(frame));
        assertEquals(withReadOnlyByte, client.isReadonlyAvailable());
        assertEquals(0, r.getProtocolVersion());
        assertEquals(timeout, r.getTimeOut());
        assertEquals(sessionId, r.getSessionId());
        assertArrayEquals(password, r.getPasswd());
        assertFalse(r.getReadOnly(), "a zkr server is never read-only");
    }

    @Test
    void anExpiredSessionGetsZooKeepersExpiredAnswerThenTheClose() throws Exception {
        for (boolean withReadOnlyByte : new boolean[] {true, false}) {
            ZooKeeperTranslator t = new ZooKeeperTranslator();
            t.decode(withReadOnlyByte ? ApacheWire.connect(5, 30_000, 0x1234, new byte[16], false)
                    : ApacheWire.connectWithoutReadOnly(5, 30_000, 0x1234, new byte[16]));
            ByteBuf out = Unpooled.buffer();
            assertTrue(t.encode(new Message.ConnectRefused(ZkException.Code.SESSION_EXPIRED.intValue(),
                    "session 0x1234 expired"), out));
            ProtocolManager client = new ProtocolManager();
            ConnectResponse r = client.deserializeConnectResponse(ApacheWire.archive(ApacheWire.frame(out)));
            assertEquals(withReadOnlyByte, client.isReadonlyAvailable());
            // ClientCnxn.onConnected: a timeout <= 0 is "session expired"
            assertEquals(0, r.getTimeOut());
            assertEquals(0, r.getSessionId());
            assertArrayEquals(new byte[16], r.getPasswd());
            assertFalse(out.isReadable());
        }
    }

    @Test
    void otherRefusalsAndProtocolErrorsCloseWithoutAnswer() {
        for (ZkException.Code code : new ZkException.Code[] {ZkException.Code.CONNECTION_LOSS,
                ZkException.Code.SYSTEM_ERROR, ZkException.Code.THROTTLED}) {
            ZooKeeperTranslator t = new ZooKeeperTranslator();
            t.decode(ApacheWire.newSession());
            ByteBuf out = Unpooled.buffer();
            assertTrue(t.encode(new Message.ConnectRefused(code.intValue(), "server behind the client"), out));
            assertFalse(out.isReadable(), code + ": ZooKeeper closes without a ConnectResponse");
        }
        ZooKeeperTranslator t = new ZooKeeperTranslator();
        t.decode(ApacheWire.newSession());
        ByteBuf out = Unpooled.buffer();
        assertTrue(t.encode(new Message.ProtocolError(-5, "bad"), out));
        assertFalse(out.isReadable());
    }

    @Test
    void aFirstFrameThatIsNotExactlyAConnectRequestIsRefused() {
        // a request sent before the handshake
        ByteBuf request = ApacheWire.request(1, OpCode.GET_DATA, new GetDataRequest("/zookeeper/config", true));
        ZooKeeperProtocolException e = assertThrows(ZooKeeperProtocolException.class,
                () -> new ZooKeeperTranslator().decode(request));
        assertEquals(ZooKeeperProtocolException.Kind.BAD_HANDSHAKE, e.kind());
        // a ping before the handshake, as a hostile client might send it
        assertThrows(ZooKeeperProtocolException.class,
                () -> new ZooKeeperTranslator().decode(ApacheWire.request(-2, OpCode.PING, null)));
        // another protocolVersion
        ByteBuf v1 = Unpooled.wrappedBuffer(ApacheWire.bytes(new ConnectRequest(1, 0, 30_000, 0, new byte[16],
                false)));
        assertThrows(ZooKeeperProtocolException.class, () -> new ZooKeeperTranslator().decode(v1));
        // truncated
        ByteBuf full = ApacheWire.newSession();
        for (int n = 0; n < full.readableBytes() - 1; n++) {
            ByteBuf cut = full.slice(0, n);
            assertEquals(ZooKeeperProtocolException.Kind.BAD_HANDSHAKE, assertThrows(
                    ZooKeeperProtocolException.class, () -> new ZooKeeperTranslator().decode(cut)).kind(), n + "");
        }
        // garbage after the readOnly byte
        ByteBuf longer = Unpooled.wrappedBuffer(ApacheWire.newSession(), Unpooled.wrappedBuffer(new byte[] {0}));
        assertThrows(ZooKeeperProtocolException.class, () -> new ZooKeeperTranslator().decode(longer));
        // a password length beyond the frame, before anything is allocated for it
        ByteBuf hostile = Unpooled.buffer().writeInt(0).writeLong(0).writeInt(30_000).writeLong(0)
                .writeInt(Integer.MAX_VALUE);
        assertThrows(ZooKeeperProtocolException.class, () -> new ZooKeeperTranslator().decode(hostile));
    }

    @Test
    void theSmallestConnectRequestIsTwentyEightBytes() {
        ByteBuf frame = ApacheWire.connectWithoutReadOnly(0, 30_000, 0, null);
        assertEquals(Handshake.MIN_REQUEST, frame.readableBytes());
        Message.ConnectRequest cr = (Message.ConnectRequest) new ZooKeeperTranslator().decode(frame);
        assertEquals(null, cr.password());
    }

    @Test
    void aBinaryInputArchiveIsWhatTheServerReadsWith() {
        // sanity of the test helper against jute's own stream reader
        ByteBuf frame = ApacheWire.connect(7, 4000, 9, new byte[16], true);
        BinaryInputArchive a = BinaryInputArchive.getArchive(new java.io.ByteArrayInputStream(
                io.netty.buffer.ByteBufUtil.getBytes(frame)));
        ConnectRequest r = new ConnectRequest();
        assertTrue(Jute.read(a, r));
        assertEquals(7, r.getLastZxidSeen());
        assertTrue(r.getReadOnly());
    }
}
