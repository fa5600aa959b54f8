package dev.zkr.wire;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.Serializer;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import dev.zkr.client.CreateMode;
import dev.zkr.client.Stat;

/**
 * Hand-written serializers for the messages of the hot paths (create, setData, getData, exists, their replies and
 * Stat). They write exactly the bytes Kryo's reflective {@code RecordSerializer} writes — the components sorted by
 * name (as that serializer sorts them), ints and longs as signed var-ints, final reference types through
 * {@link Kryo#writeObjectOrNull}, others with their class — so the wire format is unchanged
 * ({@code HotSerializersTest} compares both byte for byte); they only skip the reflective accessor calls, the
 * boxing and the reflective constructor call.
 */
final class HotSerializers {

    private HotSerializers() {
    }

    static void register(Kryo kryo) {
        kryo.register(Stat.class, new StatSerializer(), 120);
        kryo.register(Message.CreateRequest.class, new CreateRequestSerializer(), 150);
        kryo.register(Message.ExistsRequest.class, new ExistsRequestSerializer(), 152);
        kryo.register(Message.GetDataRequest.class, new GetDataRequestSerializer(), 153);
        kryo.register(Message.SetDataRequest.class, new SetDataRequestSerializer(), 154);
        kryo.register(Message.Reply.class, new ReplySerializer(), 170);
        kryo.register(Message.CreateBody.class, new CreateBodySerializer(), 172);
        kryo.register(Message.StatBody.class, new StatBodySerializer(), 173);
        kryo.register(Message.DataBody.class, new DataBodySerializer(), 174);
    }

    private static void writeRef(Kryo kryo, Output out, Object value, Class<?> type) {
        if (kryo.isFinal(type)) {
            kryo.writeObjectOrNull(out, value, type);
        } else {
            kryo.writeClassAndObject(out, value);
        }
    }

    private static <T> T readRef(Kryo kryo, Input in, Class<T> type) {
        if (kryo.isFinal(type)) {
            return kryo.readObjectOrNull(in, type);
        }
        Object o = kryo.readClassAndObject(in);
        if (o != null && !type.isInstance(o)) {
            throw new com.esotericsoftware.kryo.KryoException("unexpected " + o.getClass().getSimpleName()
                    + " where a " + type.getSimpleName() + " belongs");
        }
        return type.cast(o);
    }

    private static void writeInt(Output out, int v) {
        out.writeInt(v, false);
    }

    private static int readInt(Input in) {
        return in.readInt(false);
    }

    private static void writeLong(Output out, long v) {
        out.writeVarLong(v, false);
    }

    private static long readLong(Input in) {
        return in.readVarLong(false);
    }

    static final class StatSerializer extends Serializer<Stat> {
        @Override
        public void write(Kryo kryo, Output out, Stat s) {
            writeInt(out, s.aversion());
            writeLong(out, s.ctime());
            writeInt(out, s.cversion());
            writeLong(out, s.czxid());
            writeInt(out, s.dataLength());
            writeLong(out, s.ephemeralOwner());
            writeLong(out, s.mtime());
            writeLong(out, s.mzxid());
            writeInt(out, s.numChildren());
            writeLong(out, s.pzxid());
            writeInt(out, s.version());
        }

        @Override
        public Stat read(Kryo kryo, Input in, Class<? extends Stat> type) {
            int aversion = readInt(in);
            long ctime = readLong(in);
            int cversion = readInt(in);
            long czxid = readLong(in);
            int dataLength = readInt(in);
            long ephemeralOwner = readLong(in);
            long mtime = readLong(in);
            long mzxid = readLong(in);
            int numChildren = readInt(in);
            long pzxid = readLong(in);
            int version = readInt(in);
            return new Stat(czxid, mzxid, pzxid, ctime, mtime, version, cversion, aversion, ephemeralOwner,
                    dataLength, numChildren);
        }
    }

    static final class CreateRequestSerializer extends Serializer<Message.CreateRequest> {
        @Override
        public void write(Kryo kryo, Output out, Message.CreateRequest r) {
            writeRef(kryo, out, r.data(), byte[].class);
            writeRef(kryo, out, r.mode(), CreateMode.class);
            writeRef(kryo, out, r.path(), String.class);
            writeInt(out, r.xid());
        }

        @Override
        public Message.CreateRequest read(Kryo kryo, Input in, Class<? extends Message.CreateRequest> type) {
            byte[] data = readRef(kryo, in, byte[].class);
            CreateMode mode = readRef(kryo, in, CreateMode.class);
            String path = readRef(kryo, in, String.class);
            return new Message.CreateRequest(readInt(in), path, data, mode);
        }
    }

    static final class ExistsRequestSerializer extends Serializer<Message.ExistsRequest> {
        @Override
        public void write(Kryo kryo, Output out, Message.ExistsRequest r) {
            writeRef(kryo, out, r.path(), String.class);
            out.writeBoolean(r.watch());
            writeInt(out, r.xid());
        }

        @Override
        public Message.ExistsRequest read(Kryo kryo, Input in, Class<? extends Message.ExistsRequest> type) {
            String path = readRef(kryo, in, String.class);
            boolean watch = in.readBoolean();
            return new Message.ExistsRequest(readInt(in), path, watch);
        }
    }

    static final class GetDataRequestSerializer extends Serializer<Message.GetDataRequest> {
        @Override
        public void write(Kryo kryo, Output out, Message.GetDataRequest r) {
            writeRef(kryo, out, r.path(), String.class);
            out.writeBoolean(r.watch());
            writeInt(out, r.xid());
        }

        @Override
        public Message.GetDataRequest read(Kryo kryo, Input in, Class<? extends Message.GetDataRequest> type) {
            String path = readRef(kryo, in, String.class);
            boolean watch = in.readBoolean();
            return new Message.GetDataRequest(readInt(in), path, watch);
        }
    }

    static final class SetDataRequestSerializer extends Serializer<Message.SetDataRequest> {
        @Override
        public void write(Kryo kryo, Output out, Message.SetDataRequest r) {
            writeRef(kryo, out, r.data(), byte[].class);
            writeRef(kryo, out, r.path(), String.class);
            writeInt(out, r.version());
            writeInt(out, r.xid());
        }

        @Override
        public Message.SetDataRequest read(Kryo kryo, Input in, Class<? extends Message.SetDataRequest> type) {
            byte[] data = readRef(kryo, in, byte[].class);
            String path = readRef(kryo, in, String.class);
            int version = readInt(in);
            return new Message.SetDataRequest(readInt(in), path, data, version);
        }
    }

    static final class ReplySerializer extends Serializer<Message.Reply> {
        @Override
        public void write(Kryo kryo, Output out, Message.Reply r) {
            writeRef(kryo, out, r.body(), Message.Body.class);
            writeInt(out, r.code());
            writeRef(kryo, out, r.message(), String.class);
            writeInt(out, r.xid());
            writeLong(out, r.zxid());
        }

        @Override
        public Message.Reply read(Kryo kryo, Input in, Class<? extends Message.Reply> type) {
            Message.Body body = readRef(kryo, in, Message.Body.class);
            int code = readInt(in);
            String message = readRef(kryo, in, String.class);
            int xid = readInt(in);
            return new Message.Reply(xid, readLong(in), code, body, message);
        }
    }

    static final class CreateBodySerializer extends Serializer<Message.CreateBody> {
        @Override
        public void write(Kryo kryo, Output out, Message.CreateBody b) {
            writeRef(kryo, out, b.path(), String.class);
            writeRef(kryo, out, b.stat(), Stat.class);
        }

        @Override
        public Message.CreateBody read(Kryo kryo, Input in, Class<? extends Message.CreateBody> type) {
            String path = readRef(kryo, in, String.class);
            return new Message.CreateBody(path, readRef(kryo, in, Stat.class));
        }
    }

    static final class StatBodySerializer extends Serializer<Message.StatBody> {
        @Override
        public void write(Kryo kryo, Output out, Message.StatBody b) {
            writeRef(kryo, out, b.stat(), Stat.class);
        }

        @Override
        public Message.StatBody read(Kryo kryo, Input in, Class<? extends Message.StatBody> type) {
            return new Message.StatBody(readRef(kryo, in, Stat.class));
        }
    }

    static final class DataBodySerializer extends Serializer<Message.DataBody> {
        @Override
        public void write(Kryo kryo, Output out, Message.DataBody b) {
            writeRef(kryo, out, b.data(), byte[].class);
            writeRef(kryo, out, b.stat(), Stat.class);
        }

        @Override
        public Message.DataBody read(Kryo kryo, Input in, Class<? extends Message.DataBody> type) {
            byte[] data = readRef(kryo, in, byte[].class);
            return new Message.DataBody(data, readRef(kryo, in, Stat.class));
        }
    }
}
