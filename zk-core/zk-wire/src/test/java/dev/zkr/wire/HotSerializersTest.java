package dev.zkr.wire;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.KryoException;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import dev.zkr.client.CreateMode;
import dev.zkr.client.Stat;
import dev.zkr.client.ZkException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The hand-written serializers write and read exactly what Kryo's reflective record serializer does. */
class HotSerializersTest {

    private final Kryo fast = WireKryo.create();
    private final Kryo reflective = WireKryo.createReflective();

    private static byte[] encode(Kryo kryo, Object o) {
        Output out = new Output(256, -1);
        kryo.writeClassAndObject(out, o);
        return out.toBytes();
    }

    private static List<Object> samples(Random r) {
        List<Object> all = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            long big = r.nextBoolean() ? r.nextLong() : r.nextInt(1000) - 500;
            Stat stat = new Stat(big, r.nextLong(), r.nextInt(), -1, Long.MAX_VALUE, r.nextInt(), -r.nextInt(5),
                    0, r.nextBoolean() ? 0 : r.nextLong(), r.nextInt(1 << 20), Integer.MIN_VALUE);
            byte[] data = r.nextInt(5) == 0 ? null : new byte[r.nextInt(300)];
            if (data != null) {
                r.nextBytes(data);
            }
            String path = r.nextInt(7) == 0 ? null : "/p" + r.nextInt() + (r.nextBoolean() ? "/é" : "");
            int xid = r.nextInt();
            CreateMode mode = r.nextInt(6) == 0 ? null : CreateMode.values()[r.nextInt(CreateMode.values().length)];
            all.add(stat);
            all.add(new Message.CreateRequest(xid, path, data, mode));
            all.add(new Message.SetDataRequest(xid, path, data, r.nextInt()));
            all.add(new Message.GetDataRequest(xid, path, r.nextBoolean()));
            all.add(new Message.ExistsRequest(xid, path, r.nextBoolean()));
            all.add(new Message.CreateBody(path, r.nextBoolean() ? stat : null));
            all.add(new Message.StatBody(stat));
            all.add(new Message.DataBody(data, stat));
            Message.Body body = switch (r.nextInt(5)) {
                case 0 -> null;
                case 1 -> new Message.CreateBody(path, stat);
                case 2 -> new Message.StatBody(stat);
                case 3 -> new Message.DataBody(data, stat);
                default -> new Message.ChildrenBody(new String[]{"a", "b"}, stat);
            };
            all.add(new Message.Reply(xid, big, ZkException.Code.values()[r.nextInt(5)].intValue(), body,
                    r.nextBoolean() ? null : "why"));
        }
        return all;
    }

    @Test
    void sameBytesAsTheReflectiveRecordSerializerBothWays() {
        for (Object o : samples(new Random(7))) {
            byte[] a = encode(fast, o);
            byte[] b = encode(reflective, o);
            assertArrayEquals(b, a, "bytes of " + o);
            Object back = fast.readClassAndObject(new Input(b));
            assertEquals(encode(reflective, back).length, b.length);
            assertArrayEquals(b, encode(reflective, back), "fast read of " + o);
            assertArrayEquals(b, encode(fast, reflective.readClassAndObject(new Input(a))), "reflective read of " + o);
        }
    }

    @Test
    void aBodyOfTheWrongTypeIsRejected() {
        // a Reply whose body slot holds a Stat: the reflective serializer fails at the constructor, the fast one
        // on the type check; both with a KryoException, which the codec turns into a MalformedMessageException
        Output out = new Output(64, -1);
        out.writeVarInt(170 + 2, true); // class id of Reply (Kryo writes id + 2); components sorted by name:
        fast.writeClassAndObject(out, new Stat(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11)); // body
        out.writeInt(0, false); // code
        out.writeVarInt(0, true); // message (null)
        out.writeInt(1, false); // xid
        out.writeVarLong(2, false); // zxid
        byte[] bytes = out.toBytes();
        assertThrows(KryoException.class, () -> fast.readClassAndObject(new Input(bytes)));
        assertThrows(MalformedMessageException.class, () -> MessageCodec.decode(bytes));
    }
}
