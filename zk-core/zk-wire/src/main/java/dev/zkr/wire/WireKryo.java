package dev.zkr.wire;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.KryoException;
import com.esotericsoftware.kryo.Registration;
import com.esotericsoftware.kryo.Serializer;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import com.esotericsoftware.kryo.util.DefaultClassResolver;
import dev.zkr.client.Acl;
import dev.zkr.client.AddWatchMode;
import dev.zkr.client.ClientInfo;
import dev.zkr.client.Id;
import dev.zkr.client.CreateMode;
import dev.zkr.client.EnsembleMember;
import dev.zkr.client.MembershipChange;
import dev.zkr.client.Op;
import dev.zkr.client.OpResult;
import dev.zkr.client.Stat;
import dev.zkr.client.WatchedEvent;
import dev.zkr.client.WatcherType;
import dev.zkr.client.ZkException;

import java.lang.reflect.Array;
import java.nio.charset.StandardCharsets;

/**
 * The Kryo configuration of the client protocol: {@link SafeKryo}'s settings (registration required, ids only, no
 * references, length-checked strings and byte arrays) plus the client port's classes with fixed ids 101–199 (never
 * change or reuse an id; append new ones), and length-checked object arrays.
 */
final class WireKryo {

    private WireKryo() {
    }

    /** A new Kryo for one thread (Kryo instances are not thread-safe). */
    static Kryo create() {
        Kryo kryo = createReflective();
        HotSerializers.register(kryo);
        return kryo;
    }

    /** The same registrations with Kryo's reflective record serializers only (the reference wire format). */
    static Kryo createReflective() {
        Kryo kryo = SafeKryo.create();
        kryo.register(String[].class, new BoundedArraySerializer<>(String.class), 101);
        kryo.register(Op[].class, new BoundedArraySerializer<>(Op.class), 102);
        kryo.register(OpResult[].class, new BoundedArraySerializer<>(OpResult.class), 103);
        // enums
        kryo.register(CreateMode.class, 110);
        kryo.register(AddWatchMode.class, 111);
        kryo.register(WatcherType.class, 112);
        kryo.register(WatchedEvent.Type.class, 113);
        kryo.register(ZkException.Code.class, 114);
        // value records
        kryo.register(Stat.class, 120);
        kryo.register(Op.Create.class, 121);
        kryo.register(Op.Delete.class, 122);
        kryo.register(Op.SetData.class, 123);
        kryo.register(Op.Check.class, 124);
        kryo.register(OpResult.CreateResult.class, 125);
        kryo.register(OpResult.DeleteResult.class, 126);
        kryo.register(OpResult.SetDataResult.class, 127);
        kryo.register(OpResult.CheckResult.class, 128);
        kryo.register(OpResult.ErrorResult.class, 129);
        // handshake and control
        kryo.register(Message.ConnectRequest.class, 140);
        kryo.register(Message.ConnectResponse.class, 141);
        kryo.register(Message.ConnectRefused.class, 142);
        kryo.register(Message.ProtocolError.class, 143);
        // requests
        kryo.register(Message.CreateRequest.class, 150);
        kryo.register(Message.DeleteRequest.class, 151);
        kryo.register(Message.ExistsRequest.class, 152);
        kryo.register(Message.GetDataRequest.class, 153);
        kryo.register(Message.SetDataRequest.class, 154);
        kryo.register(Message.GetChildrenRequest.class, 155);
        kryo.register(Message.MultiRequest.class, 156);
        kryo.register(Message.SyncRequest.class, 157);
        kryo.register(Message.AddWatchRequest.class, 158);
        kryo.register(Message.RemoveWatchesRequest.class, 159);
        kryo.register(Message.SetWatchesRequest.class, 160);
        kryo.register(Message.PingRequest.class, 161);
        kryo.register(Message.CloseSessionRequest.class, 162);
        // server to client
        kryo.register(Message.Reply.class, 170);
        kryo.register(Message.WatchEvent.class, 171);
        kryo.register(Message.CreateBody.class, 172);
        kryo.register(Message.StatBody.class, 173);
        kryo.register(Message.DataBody.class, 174);
        kryo.register(Message.ChildrenBody.class, 175);
        kryo.register(Message.MultiBody.class, 176);
        // ACLs and authentication (appended)
        kryo.register(Acl[].class, new BoundedArraySerializer<>(Acl.class), 104);
        kryo.register(Acl.class, 130);
        kryo.register(Id.class, 131);
        kryo.register(Op.Create.class, new OpCreateSerializer(), 121); // its ACL list travels as an array
        kryo.register(Message.CreateAclRequest.class, 163);
        kryo.register(Message.GetAclRequest.class, 164);
        kryo.register(Message.SetAclRequest.class, 165);
        kryo.register(Message.AuthRequest.class, 166);
        kryo.register(Message.AclBody.class, 177);
        // ZooKeeper 3.6+ requests (appended; WatcherType gained PERSISTENT_RECURSIVE last: ordinals unchanged)
        kryo.register(ClientInfo[].class, new BoundedArraySerializer<>(ClientInfo.class), 105);
        kryo.register(ClientInfo.class, 132);
        kryo.register(Op.GetData.class, 133);
        kryo.register(Op.GetChildren.class, 134);
        kryo.register(OpResult.GetDataResult.class, 135);
        kryo.register(OpResult.GetChildrenResult.class, new GetChildrenResultSerializer(), 136);
        kryo.register(Message.MultiReadRequest.class, 167);
        kryo.register(Message.GetEphemeralsRequest.class, 168);
        kryo.register(Message.GetAllChildrenNumberRequest.class, 169);
        kryo.register(Message.WhoAmIRequest.class, 180);
        kryo.register(Message.CheckWatchesRequest.class, 181);
        kryo.register(Message.PathsBody.class, 178);
        kryo.register(Message.CountBody.class, 179);
        kryo.register(Message.ClientInfoBody.class, 182);
        kryo.register(Message.CreateTtlRequest.class, 183);
        // exactly-once acknowledgements (appended)
        kryo.register(Message.AckedRequest.class, 184);
        // membership changes (appended)
        kryo.register(EnsembleMember[].class, new BoundedArraySerializer<>(EnsembleMember.class), 106);
        kryo.register(EnsembleMember.Role.class, 115);
        kryo.register(MembershipChange.Kind.class, 116);
        kryo.register(EnsembleMember.class, 137);
        kryo.register(MembershipChange.class, 138);
        kryo.register(Message.GetMembersRequest.class, 185);
        kryo.register(Message.ReconfigRequest.class, 186);
        kryo.register(Message.MembersBody.class, 187);
        kryo.register(Message.ZooKeeperReconfigRequest.class, 188);
        kryo.register(Message.AddWatchWithDataRequest.class, 189);
        kryo.register(Message.SetWatchesWithDataRequest.class, 190);
        kryo.register(Message.WatchEventWithData.class, 191);
        return kryo;
    }

    /**
     * {@link Op.Create}: path, data, mode, then its ACL as an array (null = the default open ACL), then for a TTL mode
     * only its TTL (so a create of any other mode encodes as it did before TTL modes existed).
     */
    static final class OpCreateSerializer extends Serializer<Op.Create> {
        @Override
        public void write(Kryo kryo, Output output, Op.Create c) {
            kryo.writeObjectOrNull(output, c.path(), String.class);
            kryo.writeObjectOrNull(output, c.data(), byte[].class);
            kryo.writeObjectOrNull(output, c.mode(), CreateMode.class);
            kryo.writeObjectOrNull(output, c.acls() == null ? null : c.acls().toArray(new Acl[0]), Acl[].class);
            if (c.mode() != null && c.mode().isTtl()) {
                output.writeVarLong(c.ttlMs(), false);
            }
        }

        @Override
        public Op.Create read(Kryo kryo, Input input, Class<? extends Op.Create> type) {
            String path = kryo.readObjectOrNull(input, String.class);
            byte[] data = kryo.readObjectOrNull(input, byte[].class);
            CreateMode mode = kryo.readObjectOrNull(input, CreateMode.class);
            Acl[] acls = kryo.readObjectOrNull(input, Acl[].class);
            if (acls != null && java.util.Arrays.asList(acls).contains(null)) {
                throw new KryoException("null ACL entry");
            }
            long ttl = mode != null && mode.isTtl() ? input.readVarLong(false) : -1;
            return new Op.Create(path, data, mode, acls == null ? null : java.util.List.of(acls), ttl);
        }
    }

    /** {@link OpResult.GetChildrenResult}: its names as a String array (null = none). */
    static final class GetChildrenResultSerializer extends Serializer<OpResult.GetChildrenResult> {
        @Override
        public void write(Kryo kryo, Output output, OpResult.GetChildrenResult r) {
            kryo.writeObjectOrNull(output, r.children().toArray(new String[0]), String[].class);
        }

        @Override
        public OpResult.GetChildrenResult read(Kryo kryo, Input input, Class<? extends OpResult.GetChildrenResult> t) {
            String[] names = kryo.readObjectOrNull(input, String[].class);
            if (names != null && java.util.Arrays.asList(names).contains(null)) {
                throw new KryoException("null child name");
            }
            return new OpResult.GetChildrenResult(names == null ? null : java.util.List.of(names));
        }
    }

    /** Refuses classes named on the wire: only registered ids are accepted, nothing is looked up by name. */
    static final class IdOnlyClassResolver extends DefaultClassResolver {
        @Override
        protected Registration readName(Input input) {
            throw new KryoException("class names are not accepted on the wire");
        }
    }

    /** Fails if a declared length cannot fit in what is left of the input (each element takes at least 1 byte). */
    static void checkLength(Input input, int length) {
        if (length < 0 || length > input.limit() - input.position()) {
            throw new KryoException("declared length " + length + " exceeds the frame");
        }
    }

    /** UTF-8 strings with a byte-length prefix (0 = null). */
    static final class BoundedStringSerializer extends Serializer<String> {
        BoundedStringSerializer() {
            setAcceptsNull(true);
            setImmutable(true);
        }

        @Override
        public void write(Kryo kryo, Output output, String value) {
            if (value == null) {
                output.writeVarInt(0, true);
                return;
            }
            byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
            output.writeVarInt(bytes.length + 1, true);
            output.writeBytes(bytes);
        }

        @Override
        public String read(Kryo kryo, Input input, Class<? extends String> type) {
            int length = input.readVarInt(true);
            if (length == 0) {
                return null;
            }
            checkLength(input, length - 1);
            return new String(input.readBytes(length - 1), StandardCharsets.UTF_8);
        }
    }

    /** byte arrays with a length prefix (0 = null). */
    static final class BoundedBytesSerializer extends Serializer<byte[]> {
        BoundedBytesSerializer() {
            setAcceptsNull(true);
        }

        @Override
        public void write(Kryo kryo, Output output, byte[] value) {
            if (value == null) {
                output.writeVarInt(0, true);
                return;
            }
            output.writeVarInt(value.length + 1, true);
            output.writeBytes(value);
        }

        @Override
        public byte[] read(Kryo kryo, Input input, Class<? extends byte[]> type) {
            int length = input.readVarInt(true);
            if (length == 0) {
                return null;
            }
            checkLength(input, length - 1);
            return input.readBytes(length - 1);
        }
    }

    /** Arrays of objects, each element written with its class. */
    static final class BoundedArraySerializer<T> extends Serializer<T[]> {
        private final Class<T> elementType;

        BoundedArraySerializer(Class<T> elementType) {
            this.elementType = elementType;
            setAcceptsNull(true);
        }

        @Override
        public void write(Kryo kryo, Output output, T[] value) {
            if (value == null) {
                output.writeVarInt(0, true);
                return;
            }
            output.writeVarInt(value.length + 1, true);
            for (T element : value) {
                kryo.writeClassAndObject(output, element);
            }
        }

        @Override
        @SuppressWarnings("unchecked")
        public T[] read(Kryo kryo, Input input, Class<? extends T[]> type) {
            int length = input.readVarInt(true);
            if (length == 0) {
                return null;
            }
            checkLength(input, length - 1);
            T[] array = (T[]) Array.newInstance(elementType, length - 1);
            for (int i = 0; i < array.length; i++) {
                Object element = kryo.readClassAndObject(input);
                if (element != null && !elementType.isInstance(element)) {
                    throw new KryoException("unexpected element " + element.getClass().getSimpleName());
                }
                array[i] = (T) element;
            }
            return array;
        }
    }
}
