package dev.zkr.client.netty;

import dev.zkr.client.Children;
import dev.zkr.client.Created;
import dev.zkr.client.NodeData;
import dev.zkr.client.OpResult;
import dev.zkr.client.ZkException;
import dev.zkr.client.ZkException.Code;
import dev.zkr.wire.Message;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** Turns a server {@link Message.Reply} into the result of a request, or the {@link ZkException} it failed with. */
final class ReplyDecoder {

    private ReplyDecoder() {
    }

    /** The value the caller's future completes with; throws the request's failure. */
    static Object result(OutstandingRequest p, Message.Reply reply) {
        int code = reply.code();
        if (code != Code.OK.intValue()) {
            if (p.kind == OutstandingRequest.Kind.EXISTS && code == Code.NO_NODE.intValue()) {
                return null;
            }
            if (p.kind == OutstandingRequest.Kind.REMOVE_WATCHES && code == Code.NO_WATCHER.intValue()) {
                return null; // removed locally already; the server had fired or forgotten it
            }
            if (p.kind == OutstandingRequest.Kind.MULTI) {
                throw multiFailure(p, reply);
            }
            throw ZkException.of(Code.of(code), p.path, reply.message());
        }
        Message.Body body = reply.body();
        return switch (p.kind) {
            case CREATE -> {
                Message.CreateBody b = body(p, body, Message.CreateBody.class);
                yield new Created(b.path(), b.stat());
            }
            case EXISTS -> body == null ? null : body(p, body, Message.StatBody.class).stat();
            case SET_DATA -> body(p, body, Message.StatBody.class).stat();
            case GET_DATA -> {
                Message.DataBody b = body(p, body, Message.DataBody.class);
                yield new NodeData(b.data() == null ? new byte[0] : b.data(), b.stat());
            }
            case GET_CHILDREN -> {
                Message.ChildrenBody b = body(p, body, Message.ChildrenBody.class);
                yield new Children(b.names() == null ? new ArrayList<>() : new ArrayList<>(Arrays.asList(b.names())),
                        b.stat());
            }
            case MULTI -> List.of(body(p, body, Message.MultiBody.class).results());
            case GET_ACL -> {
                Message.AclBody b = body(p, body, Message.AclBody.class);
                yield new dev.zkr.client.NodeAcl(b.acls() == null ? List.of() : List.of(b.acls()), b.stat());
            }
            case SET_ACL -> body(p, body, Message.StatBody.class).stat();
            case MULTI_READ -> {
                // null data (a ZooKeeper client's) reads as empty, as getData's
                List<OpResult> results = new ArrayList<>();
                for (OpResult r : body(p, body, Message.MultiBody.class).results()) {
                    results.add(r instanceof OpResult.GetDataResult d && d.data() == null
                            ? new OpResult.GetDataResult(new byte[0], d.stat()) : r);
                }
                yield List.copyOf(results);
            }
            case GET_EPHEMERALS -> {
                String[] paths = body(p, body, Message.PathsBody.class).paths();
                yield paths == null ? List.of() : List.of(paths);
            }
            case GET_ALL_CHILDREN_NUMBER -> body(p, body, Message.CountBody.class).count();
            case MEMBERS, RECONFIG -> {
                dev.zkr.client.EnsembleMember[] members = body(p, body, Message.MembersBody.class).members();
                yield members == null ? List.of() : List.of(members);
            }
            case WHO_AM_I -> {
                dev.zkr.client.ClientInfo[] infos = body(p, body, Message.ClientInfoBody.class).infos();
                yield infos == null ? List.of() : List.of(infos);
            }
            default -> null;
        };
    }

    private static ZkException multiFailure(OutstandingRequest p, Message.Reply reply) {
        Code code = Code.of(reply.code());
        if (!(reply.body() instanceof Message.MultiBody b) || b.results() == null) {
            return ZkException.of(code, null, reply.message());
        }
        List<OpResult> results = List.of(b.results());
        for (int i = 0; i < results.size(); i++) {
            if (results.get(i) instanceof OpResult.ErrorResult e
                    && e.code() != Code.OK && e.code() != Code.RUNTIME_INCONSISTENCY) {
                String path = i < p.ops.length ? p.ops[i].path() : null;
                return ZkException.of(e.code(), path, reply.message()).withMultiResults(results);
            }
        }
        return ZkException.of(code, null, reply.message()).withMultiResults(results);
    }

    private static <B extends Message.Body> B body(OutstandingRequest p, Message.Body body, Class<B> type) {
        if (!type.isInstance(body)) {
            throw new ZkException.MarshallingError(p.path, "expected " + type.getSimpleName() + " in the reply to "
                    + p.kind + ", got " + (body == null ? "none" : body.getClass().getSimpleName()));
        }
        return type.cast(body);
    }
}
