package dev.zkr.server.zookeeper;

import dev.zkr.client.WatchedEvent;
import dev.zkr.client.ZkException;
import dev.zkr.wire.Message;
import io.netty.buffer.ByteBuf;
import org.apache.jute.Record;
import org.apache.zookeeper.proto.Create2Response;
import org.apache.zookeeper.proto.CreateResponse;
import org.apache.zookeeper.proto.ErrorResponse;
import org.apache.zookeeper.proto.ExistsResponse;
import org.apache.zookeeper.proto.GetACLResponse;
import org.apache.zookeeper.proto.GetAllChildrenNumberResponse;
import org.apache.zookeeper.proto.GetChildren2Response;
import org.apache.zookeeper.proto.GetChildrenResponse;
import org.apache.zookeeper.proto.GetDataResponse;
import org.apache.zookeeper.proto.GetEphemeralsResponse;
import org.apache.zookeeper.proto.ReplyHeader;
import org.apache.zookeeper.proto.SetACLResponse;
import org.apache.zookeeper.proto.SetDataResponse;
import org.apache.zookeeper.proto.SyncResponse;
import org.apache.zookeeper.proto.WatcherEvent;
import org.apache.zookeeper.proto.WhoAmIResponse;

/**
 * zkr's replies and watch events as ZooKeeper's frames: {@code ReplyHeader {int xid, long zxid, int err}} and, for
 * a successful request, the opcode's response record, as ZooKeeper 3.9's {@code FinalRequestProcessor} writes them.
 * An error reply is the header alone (ZooKeeper's client reads no record after an error), except a failed multi,
 * which ZooKeeper answers err 0 with every op's result. Pings are answered at xid -2, auth at zxid 0.
 */
final class ReplyEncoder {

    /** ZooKeeper's KeeperState.SyncConnected: the state of every event a server sends. */
    static final int SYNC_CONNECTED = 3;

    private ReplyEncoder() {
    }

    /** Writes the reply frame for {@code r}, the server's answer to {@code p}; true if the connection closes next. */
    static boolean reply(Message.Reply r, Pending p, Jute.Writer w, ByteBuf out) {
        if (r.xid() != p.xid()) {
            throw new IllegalStateException("reply to xid " + r.xid() + " where xid " + p.xid() + " ("
                    + OpCode.name(p.opcode()) + ") is next");
        }
        Pending.Answer a = p.answer();
        if (a != null) {
            long zxid = a.zxid() == Pending.Answer.SERVER_ZXID ? r.zxid() : a.zxid();
            if (r.code() != ZkException.Code.OK.intValue()) {
                // the server refused the stand-in ping (the session expired, moved, ...): what ZooKeeper's
                // server answers any request of such a session
                w.frame(out, new ReplyHeader(p.xid(), zxid, ErrorCodes.toZooKeeper(r.code())));
            } else {
                w.frame(out, new ReplyHeader(p.xid(), zxid, a.err()), a.body());
            }
            return a.close();
        }
        int op = p.opcode();
        int xid = op == OpCode.PING ? OpCode.PING_XID : p.xid();
        long zxid = op == OpCode.AUTH ? 0 : r.zxid(); // ZooKeeper answers auth outside its pipeline, at zxid 0
        if (r.code() != ZkException.Code.OK.intValue()) {
            if (op == OpCode.MULTI && r.body() instanceof Message.MultiBody m) {
                w.frame(out, new ReplyHeader(xid, zxid, ErrorCodes.OK),
                        MultiRecords.response(m.results(), p.opTypes()));
                return false;
            }
            int err = ErrorCodes.toZooKeeper(r.code());
            w.frame(out, new ReplyHeader(xid, zxid, err));
            // ZooKeeper drops a connection whose authentication failed (the Apache client gives up on it anyway)
            return op == OpCode.CLOSE_SESSION || (op == OpCode.AUTH && err == ErrorCodes.AUTH_FAILED);
        }
        if (op == OpCode.EXISTS && r.body() instanceof Message.StatBody s && s.stat() == null) {
            // zkr answers a missing node's exists with no Stat; ZooKeeper with NONODE (its client returns null)
            w.frame(out, new ReplyHeader(xid, zxid, ErrorCodes.NO_NODE));
            return false;
        }
        w.frame(out, new ReplyHeader(xid, zxid, ErrorCodes.OK), body(r.body(), p));
        return op == OpCode.CLOSE_SESSION;
    }

    /** The response record of a successful request; null for the opcodes answered by the header alone. */
    private static Record body(Message.Body b, Pending p) {
        return switch (p.opcode()) {
            case OpCode.CREATE -> new CreateResponse(as(b, Message.CreateBody.class, p).path());
            case OpCode.CREATE2, OpCode.CREATE_CONTAINER, OpCode.CREATE_TTL -> {
                Message.CreateBody c = as(b, Message.CreateBody.class, p);
                yield new Create2Response(c.path(), Records.stat(c.stat()));
            }
            case OpCode.EXISTS -> new ExistsResponse(Records.stat(as(b, Message.StatBody.class, p).stat()));
            case OpCode.GET_DATA, OpCode.RECONFIG -> { // reconfig: /zookeeper/config after it, as ZooKeeper answers
                Message.DataBody d = as(b, Message.DataBody.class, p);
                yield new GetDataResponse(d.data(), Records.stat(d.stat()));
            }
            case OpCode.SET_DATA -> new SetDataResponse(Records.stat(as(b, Message.StatBody.class, p).stat()));
            case OpCode.GET_ACL -> {
                Message.AclBody a = as(b, Message.AclBody.class, p);
                yield new GetACLResponse(Records.acls(a.acls()), Records.stat(a.stat()));
            }
            case OpCode.SET_ACL -> new SetACLResponse(Records.stat(as(b, Message.StatBody.class, p).stat()));
            case OpCode.GET_CHILDREN -> new GetChildrenResponse(
                    Records.list(as(b, Message.ChildrenBody.class, p).names()));
            case OpCode.GET_CHILDREN2 -> {
                Message.ChildrenBody c = as(b, Message.ChildrenBody.class, p);
                yield new GetChildren2Response(Records.list(c.names()), Records.stat(c.stat()));
            }
            case OpCode.SYNC -> new SyncResponse(p.path());
            case OpCode.MULTI -> MultiRecords.response(as(b, Message.MultiBody.class, p).results(), p.opTypes());
            case OpCode.ADD_WATCH -> new ErrorResponse(ErrorCodes.OK); // ZooKeeper's client reads one
            case OpCode.MULTI_READ -> MultiRecords.response(as(b, Message.MultiBody.class, p).results(), null);
            case OpCode.GET_EPHEMERALS -> new GetEphemeralsResponse(
                    Records.list(as(b, Message.PathsBody.class, p).paths()));
            case OpCode.GET_ALL_CHILDREN_NUMBER -> new GetAllChildrenNumberResponse(
                    as(b, Message.CountBody.class, p).count());
            case OpCode.WHO_AM_I -> new WhoAmIResponse(Records.clientInfos(
                    as(b, Message.ClientInfoBody.class, p).infos()));
            default -> null; // delete, ping, removeWatches, checkWatches, setWatches(2), auth, closeSession
        };
    }

    private static <B extends Message.Body> B as(Message.Body b, Class<B> type, Pending p) {
        if (!type.isInstance(b)) {
            throw new IllegalStateException("a " + OpCode.name(p.opcode()) + " reply (xid " + p.xid() + ") with "
                    + (b == null ? "no body" : b.getClass().getSimpleName()) + " where a " + type.getSimpleName()
                    + " belongs");
        }
        return type.cast(b);
    }

    /** Writes a watch event: a notification at xid -1 with the event's zxid, state SyncConnected. */
    static void event(Message.WatchEvent e, Jute.Writer w, ByteBuf out) {
        w.frame(out, new ReplyHeader(OpCode.NOTIFICATION_XID, e.zxid(), ErrorCodes.OK),
                new WatcherEvent(eventType(e.type()), SYNC_CONNECTED, e.path()));
    }

    /** ZooKeeper's EventType int of a zkr event type. */
    static int eventType(WatchedEvent.Type type) {
        return switch (type) {
            case NODE_CREATED -> 1;
            case NODE_DELETED -> 2;
            case NODE_DATA_CHANGED -> 3;
            case NODE_CHILDREN_CHANGED -> 4;
            case DATA_WATCH_REMOVED -> 5;
            case CHILD_WATCH_REMOVED -> 6;
            case PERSISTENT_WATCH_REMOVED -> 7;
        };
    }
}
