package dev.zkr.server.peer;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.Serializer;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import dev.zkr.consensus.EpochTable;
import dev.zkr.consensus.ReplicaMessage;
import dev.zkr.consensus.SyncMode;
import dev.zkr.wire.KryoCodec;
import dev.zkr.wire.SafeKryo;

/**
 * The Kryo of the peer port: {@link SafeKryo}'s settings (registration required, ids only, no references, bounded
 * strings and byte arrays) plus the peer classes with fixed ids from 200. The table is append-only: never change or
 * reuse an id; a class that changes shape gets a new id and {@link PeerTransport#PROTOCOL_VERSION} goes up.
 * <pre>
 * 200 Hello            201 SyncMode (enum)   202 EpochTable
 * 210 PreVote  211 PreVoteAck  212 Vote  213 TimeoutNow  214 VoteAck  215 FollowerInfo  216 SyncStart
 * 217 Propose  218 Ack  219 Commit  220 Heartbeat  221 HeartbeatAck  222 LeaderDurable
 * 240 Forward  241 ForwardSession  242 ForwardReply  243 SyncRead  244 SyncReadReply  245 Attach  246 AttachReply
 * 247 Touches
 * 250 SnapshotRequest  251 SnapshotChunk  (250..254: snapshot transfer)
 * </pre>
 */
final class PeerKryo {

    /** The codec of peer frames (any registered class; the transport checks what it expects). */
    static final KryoCodec<Object> CODEC = new KryoCodec<>(PeerKryo::create, Object.class);

    private PeerKryo() {
    }

    static Kryo create() {
        Kryo kryo = SafeKryo.create();
        kryo.register(Hello.class, 200);
        kryo.register(SyncMode.class, 201);
        kryo.register(EpochTable.class, new EpochTableSerializer(), 202);
        kryo.register(ReplicaMessage.PreVote.class, 210);
        kryo.register(ReplicaMessage.PreVoteAck.class, 211);
        kryo.register(ReplicaMessage.Vote.class, 212);
        kryo.register(ReplicaMessage.TimeoutNow.class, 213);
        kryo.register(ReplicaMessage.VoteAck.class, 214);
        kryo.register(ReplicaMessage.FollowerInfo.class, 215);
        kryo.register(ReplicaMessage.SyncStart.class, 216);
        kryo.register(ReplicaMessage.Propose.class, 217);
        kryo.register(ReplicaMessage.Ack.class, 218);
        kryo.register(ReplicaMessage.Commit.class, 219);
        kryo.register(ReplicaMessage.Heartbeat.class, 220);
        kryo.register(ReplicaMessage.HeartbeatAck.class, 221);
        kryo.register(ReplicaMessage.LeaderDurable.class, 222);
        kryo.register(ServerMessage.Forward.class, 240);
        kryo.register(ServerMessage.ForwardSession.class, 241);
        kryo.register(ServerMessage.ForwardReply.class, 242);
        kryo.register(ServerMessage.SyncRead.class, 243);
        kryo.register(ServerMessage.SyncReadReply.class, 244);
        kryo.register(ServerMessage.Attach.class, 245);
        kryo.register(ServerMessage.AttachReply.class, 246);
        kryo.register(ServerMessage.Touches.class, 247);
        kryo.register(SnapshotRequest.class, 250);
        kryo.register(SnapshotChunk.class, 251);
        kryo.register(ServerMessage.ForwardOnce.class, 252);
        return kryo;
    }

    /** The last zxid of each epoch, count first; rebuilt through the builder, which refuses zxids out of order. */
    static final class EpochTableSerializer extends Serializer<EpochTable> {
        EpochTableSerializer() {
            setImmutable(true);
        }

        @Override
        public void write(Kryo kryo, Output output, EpochTable table) {
            output.writeVarInt(table.size(), true);
            for (int i = 0; i < table.size(); i++) {
                output.writeVarLong(table.lastAt(i), true);
            }
        }

        @Override
        public EpochTable read(Kryo kryo, Input input, Class<? extends EpochTable> type) {
            int size = input.readVarInt(true);
            SafeKryo.checkLength(input, size);
            EpochTable.Builder b = new EpochTable.Builder();
            for (int i = 0; i < size; i++) {
                b.add(input.readVarLong(true));
            }
            return b.build();
        }
    }
}
