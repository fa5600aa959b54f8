package dev.zkr.server.zookeeper;

import dev.zkr.client.Acl;
import dev.zkr.client.AddWatchMode;
import dev.zkr.client.CreateMode;
import dev.zkr.client.WatcherType;
import dev.zkr.wire.Message;
import io.netty.buffer.ByteBuf;
import org.apache.jute.BinaryInputArchive;
import org.apache.zookeeper.proto.AddWatchRequest;
import org.apache.zookeeper.proto.AuthPacket;
import org.apache.zookeeper.proto.CheckWatchesRequest;
import org.apache.zookeeper.proto.CreateRequest;
import org.apache.zookeeper.proto.CreateTTLRequest;
import org.apache.zookeeper.proto.DeleteRequest;
import org.apache.zookeeper.proto.ExistsRequest;
import org.apache.zookeeper.proto.GetACLRequest;
import org.apache.zookeeper.proto.GetAllChildrenNumberRequest;
import org.apache.zookeeper.proto.GetChildren2Request;
import org.apache.zookeeper.proto.GetChildrenRequest;
import org.apache.zookeeper.proto.GetDataRequest;
import org.apache.zookeeper.proto.GetEphemeralsRequest;
import org.apache.zookeeper.proto.GetSASLRequest;
import org.apache.zookeeper.proto.ReconfigRequest;
import org.apache.zookeeper.proto.RemoveWatchesRequest;
import org.apache.zookeeper.proto.SetACLRequest;
import org.apache.zookeeper.proto.SetDataRequest;
import org.apache.zookeeper.proto.SetSASLResponse;
import org.apache.zookeeper.proto.SetWatches;
import org.apache.zookeeper.proto.SetWatches2;
import org.apache.zookeeper.proto.SyncRequest;

/**
 * A request frame ({@code RequestHeader {int xid, int type}} and the opcode's record) as the zkr request to hand to
 * the server, with what its reply will need ({@link Pending}). A request zkr cannot serve, or that ZooKeeper
 * refuses before serving it, is answered by the translator as ZooKeeper answers it: the server gets a
 * {@link Message.PingRequest} with the same xid in its place, so the answer goes out in its turn among the
 * server's replies (ZooKeeper's clients match replies to requests in order). Bytes after a record are ignored, as
 * ZooKeeper ignores them.
 */
final class RequestDecoder {

    /** A decoded request: what to hand to the server, and what its reply needs. */
    record Decoded(Message.Request request, Pending pending) {
    }

    private RequestDecoder() {
    }

    static Decoded decode(ByteBuf frame) {
        return decode(frame, false);
    }

    /** {@code reconfigEnabled}: reconfig goes to the server; else it is answered RECONFIG_DISABLED. */
    static Decoded decode(ByteBuf frame, boolean reconfigEnabled) {
        if (frame.readableBytes() < 8) {
            throw new ZooKeeperProtocolException(ZooKeeperProtocolException.Kind.BAD_REQUEST,
                    "a request frame of " + frame.readableBytes() + " bytes has no RequestHeader");
        }
        int xid = frame.readInt();
        int type = frame.readInt();
        BinaryInputArchive in = Jute.reader(frame);
        return switch (type) {
            case OpCode.CREATE, OpCode.CREATE2, OpCode.CREATE_CONTAINER -> create(xid, type, in);
            case OpCode.CREATE_TTL -> createTtl(xid, type, in);
            case OpCode.DELETE -> {
                DeleteRequest r = new DeleteRequest();
                yield !Jute.read(in, r) ? marshalling(xid, type)
                        : send(new Message.DeleteRequest(xid, r.getPath(), r.getVersion()), type);
            }
            case OpCode.EXISTS -> {
                ExistsRequest r = new ExistsRequest();
                yield !Jute.read(in, r) ? marshalling(xid, type)
                        : send(new Message.ExistsRequest(xid, r.getPath(), r.getWatch()), type);
            }
            case OpCode.GET_DATA -> {
                GetDataRequest r = new GetDataRequest();
                yield !Jute.read(in, r) ? marshalling(xid, type)
                        : send(new Message.GetDataRequest(xid, r.getPath(), r.getWatch()), type);
            }
            case OpCode.SET_DATA -> {
                SetDataRequest r = new SetDataRequest();
                yield !Jute.read(in, r) ? marshalling(xid, type)
                        : send(new Message.SetDataRequest(xid, r.getPath(), r.getData(), r.getVersion()), type);
            }
            case OpCode.GET_ACL -> {
                GetACLRequest r = new GetACLRequest();
                yield !Jute.read(in, r) ? marshalling(xid, type)
                        : send(new Message.GetAclRequest(xid, r.getPath()), type);
            }
            case OpCode.SET_ACL -> {
                SetACLRequest r = new SetACLRequest();
                if (!Jute.read(in, r)) {
                    yield marshalling(xid, type);
                }
                Acl[] acls = Records.acls(r.getAcl());
                yield acls == null ? answer(xid, type, ErrorCodes.INVALID_ACL)
                        : send(new Message.SetAclRequest(xid, r.getPath(), acls, r.getVersion()), type);
            }
            case OpCode.GET_CHILDREN -> {
                GetChildrenRequest r = new GetChildrenRequest();
                yield !Jute.read(in, r) ? marshalling(xid, type)
                        : send(new Message.GetChildrenRequest(xid, r.getPath(), r.getWatch()), type);
            }
            case OpCode.GET_CHILDREN2 -> {
                GetChildren2Request r = new GetChildren2Request();
                yield !Jute.read(in, r) ? marshalling(xid, type)
                        : send(new Message.GetChildrenRequest(xid, r.getPath(), r.getWatch()), type);
            }
            case OpCode.SYNC -> {
                SyncRequest r = new SyncRequest();
                yield !Jute.read(in, r) ? marshalling(xid, type) : new Decoded(new Message.SyncRequest(xid,
                        r.getPath()), new Pending(xid, type, r.getPath(), null, null));
            }
            case OpCode.PING -> send(new Message.PingRequest(xid), type);
            case OpCode.MULTI -> {
                try {
                    MultiRecords.Ops ops = MultiRecords.decode(in);
                    yield new Decoded(new Message.MultiRequest(xid, ops.ops()),
                            new Pending(xid, type, null, ops.types(), null));
                } catch (CreateModes.Refusal r) {
                    yield answer(xid, type, r.err);
                }
            }
            case OpCode.REMOVE_WATCHES -> {
                RemoveWatchesRequest r = new RemoveWatchesRequest();
                if (!Jute.read(in, r)) {
                    yield marshalling(xid, type);
                }
                WatcherType t = watcherType(r.getType());
                yield t == null ? marshalling(xid, type)
                        : send(new Message.RemoveWatchesRequest(xid, r.getPath(), t), type);
            }
            case OpCode.SET_WATCHES -> {
                SetWatches r = new SetWatches();
                yield !Jute.read(in, r) ? marshalling(xid, type)
                        : send(new Message.SetWatchesRequest(xid, r.getRelativeZxid(),
                        Records.array(r.getDataWatches()), Records.array(r.getExistWatches()),
                        Records.array(r.getChildWatches()), new String[0], new String[0]), type);
            }
            case OpCode.SET_WATCHES2 -> {
                SetWatches2 r = new SetWatches2();
                yield !Jute.read(in, r) ? marshalling(xid, type)
                        : send(new Message.SetWatchesRequest(xid, r.getRelativeZxid(),
                        Records.array(r.getDataWatches()), Records.array(r.getExistWatches()),
                        Records.array(r.getChildWatches()), Records.array(r.getPersistentWatches()),
                        Records.array(r.getPersistentRecursiveWatches())), type);
            }
            case OpCode.ADD_WATCH -> {
                AddWatchRequest r = new AddWatchRequest();
                if (!Jute.read(in, r)) {
                    yield marshalling(xid, type);
                }
                AddWatchMode mode = switch (r.getMode()) {
                    case 0 -> AddWatchMode.PERSISTENT;
                    case 1 -> AddWatchMode.PERSISTENT_RECURSIVE;
                    default -> null; // ZooKeeper fails to map it: MARSHALLINGERROR
                };
                yield mode == null ? marshalling(xid, type)
                        : send(new Message.AddWatchRequest(xid, r.getPath(), mode), type);
            }
            case OpCode.AUTH -> {
                AuthPacket r = new AuthPacket();
                if (!Jute.read(in, r)) { // ZooKeeper reads it on the connection and drops the connection
                    throw new ZooKeeperProtocolException(ZooKeeperProtocolException.Kind.BAD_REQUEST,
                            "an auth packet that does not decode");
                }
                yield send(new Message.AuthRequest(xid, r.getScheme(), r.getAuth()), type);
            }
            case OpCode.SASL -> {
                if (!Jute.read(in, new GetSASLRequest())) {
                    throw new ZooKeeperProtocolException(ZooKeeperProtocolException.Kind.BAD_REQUEST,
                            "a sasl packet that does not decode");
                }
                // a ZooKeeper server without SASL answers OK with no token (its SASL server is null)
                yield local(xid, type, new Pending.Answer(ErrorCodes.OK, new SetSASLResponse(null), 0, false));
            }
            case OpCode.RECONFIG -> {
                if (!reconfigEnabled) { // ZooKeeper checks it first, before the ACL and the record
                    yield answer(xid, type, ErrorCodes.RECONFIG_DISABLED);
                }
                ReconfigRequest r = new ReconfigRequest();
                yield !Jute.read(in, r) ? marshalling(xid, type)
                        : send(new Message.ZooKeeperReconfigRequest(xid, r.getJoiningServers(), r.getLeavingServers(),
                        r.getNewMembers(), r.getCurConfigId()), type);
            }
            case OpCode.CLOSE_SESSION -> send(new Message.CloseSessionRequest(xid), type);
            case OpCode.CHECK_WATCHES -> {
                CheckWatchesRequest r = new CheckWatchesRequest();
                if (!Jute.read(in, r)) {
                    yield marshalling(xid, type);
                }
                WatcherType t = watcherType(r.getType());
                yield t == null ? marshalling(xid, type)
                        : send(new Message.CheckWatchesRequest(xid, r.getPath(), t), type);
            }
            case OpCode.MULTI_READ -> {
                try {
                    yield send(new Message.MultiReadRequest(xid, MultiRecords.decodeReads(in)), type);
                } catch (CreateModes.Refusal r) {
                    yield answer(xid, type, r.err);
                }
            }
            case OpCode.GET_EPHEMERALS -> {
                GetEphemeralsRequest r = new GetEphemeralsRequest();
                yield !Jute.read(in, r) ? marshalling(xid, type)
                        : send(new Message.GetEphemeralsRequest(xid, r.getPrefixPath()), type);
            }
            case OpCode.GET_ALL_CHILDREN_NUMBER -> {
                GetAllChildrenNumberRequest r = new GetAllChildrenNumberRequest();
                yield !Jute.read(in, r) ? marshalling(xid, type)
                        : send(new Message.GetAllChildrenNumberRequest(xid, r.getPath()), type);
            }
            case OpCode.WHO_AM_I -> send(new Message.WhoAmIRequest(xid), type); // a header, no record
            // ZooKeeper's server-internal request (its ContainerManager's); no client sends it
            case OpCode.DELETE_CONTAINER -> answer(xid, type, ErrorCodes.UNIMPLEMENTED);
            // what ZooKeeper's Request.isValid refuses (check outside a multi, notification, error, anything
            // unknown): UNIMPLEMENTED at zxid -1, then the connection is closed
            default -> local(xid, type, new Pending.Answer(ErrorCodes.UNIMPLEMENTED, null, -1, true));
        };
    }

    private static Decoded create(int xid, int type, BinaryInputArchive in) {
        CreateRequest r = new CreateRequest();
        if (!Jute.read(in, r)) {
            return marshalling(xid, type);
        }
        try {
            CreateMode mode = CreateModes.of(type, r.getFlags());
            Acl[] acls = Records.acls(r.getAcl());
            if (acls == null) {
                return answer(xid, type, ErrorCodes.INVALID_ACL);
            }
            return send(new Message.CreateAclRequest(xid, r.getPath(), r.getData(), mode, acls), type);
        } catch (CreateModes.Refusal refusal) {
            return answer(xid, type, refusal.err);
        }
    }

    private static Decoded createTtl(int xid, int type, BinaryInputArchive in) {
        CreateTTLRequest r = new CreateTTLRequest();
        if (!Jute.read(in, r)) {
            return marshalling(xid, type);
        }
        try {
            CreateMode mode = CreateModes.ttl(r.getFlags());
            Acl[] acls = Records.acls(r.getAcl());
            if (acls == null) {
                return answer(xid, type, ErrorCodes.INVALID_ACL);
            }
            return send(new Message.CreateTtlRequest(xid, r.getPath(), r.getData(), mode, acls, r.getTtl()), type);
        } catch (CreateModes.Refusal refusal) {
            return answer(xid, type, refusal.err);
        }
    }

    /** ZooKeeper's WatcherType ints (1 children, 2 data, 3 any, 4 persistent, 5 persistent recursive). */
    static WatcherType watcherType(int type) {
        return switch (type) {
            case 1 -> WatcherType.CHILDREN;
            case 2 -> WatcherType.DATA;
            case 3 -> WatcherType.ANY;
            case 4 -> WatcherType.PERSISTENT;
            case 5 -> WatcherType.PERSISTENT_RECURSIVE;
            default -> null;
        };
    }

    private static Decoded send(Message.Request request, int type) {
        return new Decoded(request, new Pending(request.xid(), type));
    }

    /** An error answered by the translator in the request's turn, at the server's zxid. */
    private static Decoded answer(int xid, int type, int err) {
        return local(xid, type, Pending.Answer.error(err));
    }

    /** A record that does not decode: ZooKeeper's pipeline answers MARSHALLINGERROR and keeps the connection. */
    private static Decoded marshalling(int xid, int type) {
        return answer(xid, type, ErrorCodes.MARSHALLING_ERROR);
    }

    private static Decoded local(int xid, int type, Pending.Answer answer) {
        return new Decoded(new Message.PingRequest(xid), new Pending(xid, type, null, null, answer));
    }
}
