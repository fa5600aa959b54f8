package dev.zkr.server.zookeeper;

import dev.zkr.client.Stat;
import dev.zkr.wire.Message;
import dev.zkr.wire.MessageCodec;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.proto.CreateRequest;
import org.apache.zookeeper.proto.GetDataRequest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.function.Supplier;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * What translating through jute costs per round trip (decode a request frame, encode its reply frame), against a
 * hand-written codec of the same bytes and against zkr's native Kryo codec: run with {@code -Dzkr.perf=true}
 * ({@code -Dtest=JuteCostCheck}). Single thread, after warm-up; ns and allocated bytes per round trip.
 */
@EnabledIfSystemProperty(named = "zkr.perf", matches = "true")
class JuteCostCheck {

    private static final int N = 1_000_000;
    private static final byte[] DATA = new byte[100];
    private static final Stat STAT = ReplyTranslationTest.STAT;

    @Test
    void getDataAndCreateRoundTrips() {
        ByteBuf getData = ApacheWire.request(5, OpCode.GET_DATA, new GetDataRequest("/app/config/node-0001", true));
        ByteBuf create = ApacheWire.request(6, OpCode.CREATE2, new CreateRequest("/app/locks/lock-", DATA,
                ZooDefs.Ids.OPEN_ACL_UNSAFE, 3));
        Message.Reply dataReply = new Message.Reply(5, 0x100, 0, new Message.DataBody(DATA, STAT), null);
        Message.Reply createReply = new Message.Reply(6, 0x101, 0, new Message.CreateBody(
                "/app/locks/lock-0000000042", STAT), null);
        ByteBuf out = Unpooled.directBuffer(1024);

        // the same bytes both ways
        ZooKeeperTranslator t = new ZooKeeperTranslator();
        t.decode(ApacheWire.newSession());
        t.decode(getData.duplicate());
        t.encode(dataReply, out);
        ByteBuf hand = Unpooled.buffer();
        HandCodec.getDataReply(dataReply, hand);
        assertEquals(hand, out);
        out.clear();

        Message.GetDataRequest nativeGet = new Message.GetDataRequest(5, "/app/config/node-0001", true);
        Message.CreateAclRequest nativeCreate = new Message.CreateAclRequest(6, "/app/locks/lock-", DATA,
                dev.zkr.client.CreateMode.EPHEMERAL_SEQUENTIAL, new dev.zkr.client.Acl[] {
                        dev.zkr.client.Acl.of(31, "world", "anyone")});
        byte[] nativeGetBytes = MessageCodec.encode(nativeGet);
        byte[] nativeCreateBytes = MessageCodec.encode(nativeCreate);

        for (int round = 0; round < 3; round++) {
            report("getData jute       ", () -> {
                t.decode(getData.duplicate());
                t.encode(dataReply, out);
                out.clear();
                return null;
            });
            report("getData hand       ", () -> {
                HandCodec.getData(getData.duplicate());
                HandCodec.getDataReply(dataReply, out);
                out.clear();
                return null;
            });
            report("getData native kryo", () -> {
                MessageCodec.decode(nativeGetBytes);
                MessageCodec.encodeFramed(dataReply, out);
                out.clear();
                return null;
            });
            report("create2 jute       ", () -> {
                t.decode(create.duplicate());
                t.encode(createReply, out);
                out.clear();
                return null;
            });
            report("create2 hand       ", () -> {
                HandCodec.create(create.duplicate());
                HandCodec.create2Reply(createReply, out);
                out.clear();
                return null;
            });
            report("create2 native kryo", () -> {
                MessageCodec.decode(nativeCreateBytes);
                MessageCodec.encodeFramed(createReply, out);
                out.clear();
                return null;
            });
        }
    }

    private static void report(String what, Supplier<Object> op) {
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long tid = Thread.currentThread().getId();
        for (int i = 0; i < N / 4; i++) {
            op.get();
        }
        long bytes = mx.getThreadAllocatedBytes(tid);
        long start = System.nanoTime();
        for (int i = 0; i < N; i++) {
            op.get();
        }
        long ns = System.nanoTime() - start;
        bytes = mx.getThreadAllocatedBytes(tid) - bytes;
        System.out.printf("%s %6.0f ns  %6d B per round trip%n", what, (double) ns / N, bytes / N);
    }

    /** The same frames, read and written field by field (what a hand-written codec would do). */
    static final class HandCodec {

        static String string(ByteBuf in) {
            int n = in.readInt();
            if (n < 0 || n > in.readableBytes()) {
                return null;
            }
            String s = in.toString(in.readerIndex(), n, StandardCharsets.UTF_8);
            in.skipBytes(n);
            return s;
        }

        static byte[] buffer(ByteBuf in) {
            int n = in.readInt();
            byte[] b = new byte[n];
            in.readBytes(b);
            return b;
        }

        static Message.GetDataRequest getData(ByteBuf in) {
            int xid = in.readInt();
            in.readInt();
            String path = string(in);
            return new Message.GetDataRequest(xid, path, in.readByte() != 0);
        }

        static Message.CreateAclRequest create(ByteBuf in) {
            int xid = in.readInt();
            in.readInt();
            String path = string(in);
            byte[] data = buffer(in);
            int n = in.readInt();
            dev.zkr.client.Acl[] acls = new dev.zkr.client.Acl[n];
            for (int i = 0; i < n; i++) {
                int perms = in.readInt();
                acls[i] = new dev.zkr.client.Acl(perms, new dev.zkr.client.Id(string(in), string(in)));
            }
            int flags = in.readInt();
            return new Message.CreateAclRequest(xid, path, data, flags == 3
                    ? dev.zkr.client.CreateMode.EPHEMERAL_SEQUENTIAL : dev.zkr.client.CreateMode.PERSISTENT, acls);
        }

        static void stat(Stat s, ByteBuf out) {
            out.writeLong(s.czxid()).writeLong(s.mzxid()).writeLong(s.ctime()).writeLong(s.mtime())
                    .writeInt(s.version()).writeInt(s.cversion()).writeInt(s.aversion()).writeLong(s.ephemeralOwner())
                    .writeInt(s.dataLength()).writeInt(s.numChildren()).writeLong(s.pzxid());
        }

        static void getDataReply(Message.Reply r, ByteBuf out) {
            int start = out.writerIndex();
            out.writeInt(0).writeInt(r.xid()).writeLong(r.zxid()).writeInt(0);
            Message.DataBody d = (Message.DataBody) r.body();
            out.writeInt(d.data().length).writeBytes(d.data());
            stat(d.stat(), out);
            out.setInt(start, out.writerIndex() - start - 4);
        }

        static void create2Reply(Message.Reply r, ByteBuf out) {
            int start = out.writerIndex();
            out.writeInt(0).writeInt(r.xid()).writeLong(r.zxid()).writeInt(0);
            Message.CreateBody c = (Message.CreateBody) r.body();
            byte[] p = c.path().getBytes(StandardCharsets.UTF_8);
            out.writeInt(p.length).writeBytes(p);
            stat(c.stat(), out);
            out.setInt(start, out.writerIndex() - start - 4);
        }
    }
}
