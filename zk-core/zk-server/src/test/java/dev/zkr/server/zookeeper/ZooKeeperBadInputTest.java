package dev.zkr.server.zookeeper;

import dev.zkr.wire.Message;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.Size;
import org.apache.jute.Record;
import org.apache.zookeeper.MultiOperationRecord;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.proto.AddWatchRequest;
import org.apache.zookeeper.proto.AuthPacket;
import org.apache.zookeeper.proto.CreateRequest;
import org.apache.zookeeper.proto.CreateTTLRequest;
import org.apache.zookeeper.proto.DeleteRequest;
import org.apache.zookeeper.proto.ExistsRequest;
import org.apache.zookeeper.proto.GetACLRequest;
import org.apache.zookeeper.proto.GetChildren2Request;
import org.apache.zookeeper.proto.GetChildrenRequest;
import org.apache.zookeeper.proto.GetDataRequest;
import org.apache.zookeeper.proto.GetSASLRequest;
import org.apache.zookeeper.proto.RemoveWatchesRequest;
import org.apache.zookeeper.proto.RequestHeader;
import org.apache.zookeeper.proto.SetACLRequest;
import org.apache.zookeeper.proto.SetDataRequest;
import org.apache.zookeeper.proto.SetWatches;
import org.apache.zookeeper.proto.SetWatches2;
import org.apache.zookeeper.proto.SyncRequest;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Bad input after the handshake: answered as ZooKeeper answers it where it does (a record that does not decode:
 * MARSHALLINGERROR, the connection kept; an opcode it does not know: UNIMPLEMENTED, then the close), refused where
 * ZooKeeper drops the connection (no RequestHeader, an auth packet that does not decode), and never anything else.
 */
class ZooKeeperBadInputTest {

    private static final List<org.apache.zookeeper.data.ACL> OPEN = ZooDefs.Ids.OPEN_ACL_UNSAFE;

    /** One well-formed record per opcode that has one. */
    private static final Map<Integer, Record> RECORDS = Map.ofEntries(
            Map.entry(OpCode.CREATE, new CreateRequest("/a", new byte[3], OPEN, 0)),
            Map.entry(OpCode.CREATE2, new CreateRequest("/a", new byte[3], OPEN, 1)),
            Map.entry(OpCode.CREATE_CONTAINER, new CreateRequest("/a", new byte[3], OPEN, 4)),
            Map.entry(OpCode.CREATE_TTL, new CreateTTLRequest("/a", new byte[3], OPEN, 5, 100)),
            Map.entry(OpCode.DELETE, new DeleteRequest("/a", 1)),
            Map.entry(OpCode.EXISTS, new ExistsRequest("/a", true)),
            Map.entry(OpCode.GET_DATA, new GetDataRequest("/a", true)),
            Map.entry(OpCode.SET_DATA, new SetDataRequest("/a", new byte[3], 1)),
            Map.entry(OpCode.GET_ACL, new GetACLRequest("/a")),
            Map.entry(OpCode.SET_ACL, new SetACLRequest("/a", OPEN, 1)),
            Map.entry(OpCode.GET_CHILDREN, new GetChildrenRequest("/a", true)),
            Map.entry(OpCode.GET_CHILDREN2, new GetChildren2Request("/a", true)),
            Map.entry(OpCode.SYNC, new SyncRequest("/a")),
            Map.entry(OpCode.MULTI, new MultiOperationRecord(List.of(org.apache.zookeeper.Op.delete("/a", 1)))),
            Map.entry(OpCode.REMOVE_WATCHES, new RemoveWatchesRequest("/a", 1)),
            Map.entry(OpCode.SET_WATCHES, new SetWatches(1, List.of("/a"), List.of("/b"), List.of("/c"))),
            Map.entry(OpCode.SET_WATCHES2, new SetWatches2(1, List.of("/a"), List.of(), List.of(), List.of("/p"),
                    List.of("/r"))),
            Map.entry(OpCode.ADD_WATCH, new AddWatchRequest("/a", 1)));

    private static ByteBuf frame(int xid, int type, byte[] body) {
        return Unpooled.wrappedBuffer(ApacheWire.bytes(new RequestHeader(xid, type)), body);
    }

    @Test
    void aTruncatedRecordIsAnsweredMarshallingErrorAndTheConnectionKept() {
        for (Map.Entry<Integer, Record> e : RECORDS.entrySet()) {
            byte[] whole = ApacheWire.bytes(e.getValue());
            for (int cut = 0; cut < whole.length; cut++) {
                Conversation c = new Conversation();
                Message m = c.translator.decode(frame(11, e.getKey(), Arrays.copyOf(whole, cut)));
                String what = OpCode.name(e.getKey()) + " cut at " + cut + " of " + whole.length;
                assertEquals(11, assertInstanceOf(Message.PingRequest.class, m, what).xid());
                Conversation.Read r = c.pingAnswer(11, 9, null);
                assertEquals(ErrorCodes.MARSHALLING_ERROR, r.header().getErr(), what);
                assertFalse(r.close(), what);
            }
        }
    }

    @Test
    void trailingBytesAfterARecordAreIgnoredAsZooKeeperIgnoresThem() {
        Conversation c = new Conversation();
        byte[] body = ApacheWire.bytes(new GetDataRequest("/a", true));
        Message.GetDataRequest g = assertInstanceOf(Message.GetDataRequest.class, c.translator.decode(
                frame(3, OpCode.GET_DATA, Arrays.copyOf(body, body.length + 7))));
        assertEquals("/a", g.path());
    }

    @Test
    void aHostileLengthInsideARecordIsAMarshallingError() {
        Conversation c = new Conversation();
        // a path declared 2^31-1 bytes long in a frame of a few bytes
        ByteBuf f = Unpooled.buffer().writeInt(4).writeInt(OpCode.GET_DATA).writeInt(Integer.MAX_VALUE).writeByte(1);
        assertInstanceOf(Message.PingRequest.class, c.translator.decode(f));
        assertEquals(ErrorCodes.MARSHALLING_ERROR, c.pingAnswer(4, 1, null).header().getErr());
    }

    @Test
    void aFrameWithoutARequestHeaderIsRefused() {
        for (int n = 0; n < 8; n++) {
            Conversation c = new Conversation();
            ByteBuf f = Unpooled.wrappedBuffer(new byte[n]);
            ZooKeeperProtocolException e = assertThrows(ZooKeeperProtocolException.class, () -> c.translator.decode(f));
            assertEquals(ZooKeeperProtocolException.Kind.BAD_REQUEST, e.kind());
        }
    }

    @Test
    void anAuthOrSaslPacketThatDoesNotDecodeIsRefused() {
        for (Map.Entry<Integer, Record> e : Map.of(OpCode.AUTH, (Record) new AuthPacket(0, "digest", new byte[8]),
                OpCode.SASL, new GetSASLRequest(new byte[8])).entrySet()) {
            byte[] whole = ApacheWire.bytes(e.getValue());
            for (int cut = 0; cut < whole.length; cut++) {
                Conversation c = new Conversation();
                ByteBuf f = frame(-4, e.getKey(), Arrays.copyOf(whole, cut));
                assertEquals(ZooKeeperProtocolException.Kind.BAD_REQUEST, assertThrows(
                        ZooKeeperProtocolException.class, () -> c.translator.decode(f)).kind());
            }
        }
    }

    @Property
    void anyFrameIsHandedOnAnsweredOrRefusedNeverAnythingElse(@ForAll @Size(max = 64) byte[] body,
                                                              @ForAll int xid, @ForAll int typeSeed) {
        int[] types = {OpCode.CREATE, OpCode.CREATE2, OpCode.CREATE_CONTAINER, OpCode.CREATE_TTL, OpCode.DELETE,
                OpCode.EXISTS, OpCode.GET_DATA, OpCode.SET_DATA, OpCode.GET_ACL, OpCode.SET_ACL, OpCode.GET_CHILDREN,
                OpCode.GET_CHILDREN2, OpCode.SYNC, OpCode.PING, OpCode.MULTI, OpCode.REMOVE_WATCHES,
                OpCode.SET_WATCHES, OpCode.SET_WATCHES2, OpCode.ADD_WATCH, OpCode.AUTH, OpCode.SASL, OpCode.RECONFIG,
                OpCode.CLOSE_SESSION, OpCode.MULTI_READ, OpCode.WHO_AM_I, typeSeed};
        int type = types[Math.floorMod(typeSeed, types.length)];
        Conversation c = new Conversation();
        Message m;
        try {
            m = c.translator.decode(frame(xid, type, body));
        } catch (ZooKeeperProtocolException e) {
            assertTrue(type == OpCode.AUTH || type == OpCode.SASL, OpCode.name(type) + ": " + e.getMessage());
            return;
        }
        Message.Request r = assertInstanceOf(Message.Request.class, m);
        assertEquals(xid, r.xid());
        assertEquals(1, c.translator.inFlight());
    }
}
