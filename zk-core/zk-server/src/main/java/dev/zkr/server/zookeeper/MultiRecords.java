package dev.zkr.server.zookeeper;

import dev.zkr.client.Acl;
import dev.zkr.client.CreateMode;
import dev.zkr.client.Op;
import dev.zkr.client.OpResult;
import org.apache.jute.BinaryInputArchive;
import org.apache.jute.InputArchive;
import org.apache.jute.OutputArchive;
import org.apache.jute.Record;
import org.apache.zookeeper.proto.CheckVersionRequest;
import org.apache.zookeeper.proto.Create2Response;
import org.apache.zookeeper.proto.CreateRequest;
import org.apache.zookeeper.proto.CreateResponse;
import org.apache.zookeeper.proto.CreateTTLRequest;
import org.apache.zookeeper.proto.DeleteRequest;
import org.apache.zookeeper.proto.ErrorResponse;
import org.apache.zookeeper.proto.GetChildrenRequest;
import org.apache.zookeeper.proto.GetChildrenResponse;
import org.apache.zookeeper.proto.GetDataRequest;
import org.apache.zookeeper.proto.GetDataResponse;
import org.apache.zookeeper.proto.MultiHeader;
import org.apache.zookeeper.proto.SetDataRequest;
import org.apache.zookeeper.proto.SetDataResponse;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * A multi's records (ZooKeeper's {@code MultiOperationRecord} and {@code MultiResponse}): each op or result is a
 * {@code MultiHeader {type, done, err}} and its record, and a header {@code {-1, true, -1}} ends the list.
 */
final class MultiRecords {

    private MultiRecords() {
    }

    /** A decoded multi: zkr's ops and their ZooKeeper op types, in order. */
    record Ops(Op[] ops, int[] types) {
    }

    /**
     * The ops of a multi request. Refused, as ZooKeeper's server answers the whole multi: MARSHALLINGERROR for a
     * record that does not decode, an unknown create flag, an op of another kind (a read op in a write multi);
     * INVALIDACL for an ACL entry without id. A TTL create (createTTL) becomes a create with its TTL, which the
     * server checks with the other ops (a bad TTL fails that op alone, as in ZooKeeper).
     */
    static Ops decode(BinaryInputArchive in) throws CreateModes.Refusal {
        List<Op> ops = new ArrayList<>();
        List<Integer> types = new ArrayList<>();
        MultiHeader h = new MultiHeader();
        if (!Jute.read(in, h)) {
            throw marshalling("multi header");
        }
        while (!h.getDone()) {
            int type = h.getType();
            switch (type) {
                case OpCode.CREATE, OpCode.CREATE2, OpCode.CREATE_CONTAINER -> {
                    CreateRequest c = read(in, new CreateRequest());
                    if (c.getFlags() < 0 || c.getFlags() > 6) {
                        throw marshalling("invalid flag " + c.getFlags() + " for create mode");
                    }
                    Acl[] acls = Records.acls(c.getAcl());
                    if (acls == null) {
                        throw new CreateModes.Refusal(ErrorCodes.INVALID_ACL, "ACL entry without id");
                    }
                    ops.add(Op.create(c.getPath(), c.getData(), CreateModes.of(type, c.getFlags()), List.of(acls)));
                }
                case OpCode.CREATE_TTL -> {
                    CreateTTLRequest c = read(in, new CreateTTLRequest());
                    Acl[] acls = Records.acls(c.getAcl());
                    if (acls == null) {
                        throw new CreateModes.Refusal(ErrorCodes.INVALID_ACL, "ACL entry without id");
                    }
                    CreateMode mode = c.getFlags() == 5 ? CreateMode.PERSISTENT_WITH_TTL
                            : c.getFlags() == 6 ? CreateMode.PERSISTENT_SEQUENTIAL_WITH_TTL
                            : c.getFlags() >= 0 && c.getFlags() <= 4 ? CreateModes.of(OpCode.CREATE, c.getFlags())
                            : null;
                    if (mode == null) {
                        throw marshalling("invalid flag " + c.getFlags() + " for create mode");
                    }
                    // a createTTL of a mode without TTL: the server refuses it BADARGUMENTS (a TTL it cannot have)
                    long ttl = mode.isTtl() ? c.getTtl() : Math.max(0, c.getTtl());
                    ops.add(new Op.Create(c.getPath(), c.getData(), mode, List.of(acls), ttl));
                }
                case OpCode.DELETE -> {
                    DeleteRequest d = read(in, new DeleteRequest());
                    ops.add(Op.delete(d.getPath(), d.getVersion()));
                }
                case OpCode.SET_DATA -> {
                    SetDataRequest s = read(in, new SetDataRequest());
                    ops.add(Op.setData(s.getPath(), s.getData(), s.getVersion()));
                }
                case OpCode.CHECK -> {
                    CheckVersionRequest c = read(in, new CheckVersionRequest());
                    ops.add(Op.check(c.getPath(), c.getVersion()));
                }
                default -> throw marshalling("op " + OpCode.name(type) + " in a multi");
            }
            types.add(type);
            if (!Jute.read(in, h)) {
                throw marshalling("multi header");
            }
        }
        return new Ops(ops.toArray(new Op[0]), types.stream().mapToInt(Integer::intValue).toArray());
    }

    /**
     * The ops of a multiRead request: getData and getChildren, each read without its watch flag (ZooKeeper's
     * {@code Op.getData(path)} drops it). Anything else, or a record that does not decode, is MARSHALLINGERROR for
     * the whole request, as ZooKeeper answers it (its record refuses mixed kinds, its server any write op).
     */
    static Op[] decodeReads(BinaryInputArchive in) throws CreateModes.Refusal {
        List<Op> ops = new ArrayList<>();
        MultiHeader h = new MultiHeader();
        if (!Jute.read(in, h)) {
            throw marshalling("multiRead header");
        }
        while (!h.getDone()) {
            switch (h.getType()) {
                case OpCode.GET_DATA -> ops.add(Op.getData(read(in, new GetDataRequest()).getPath()));
                case OpCode.GET_CHILDREN -> ops.add(Op.getChildren(read(in, new GetChildrenRequest()).getPath()));
                default -> throw marshalling("op " + OpCode.name(h.getType()) + " in a multiRead");
            }
            if (!Jute.read(in, h)) {
                throw marshalling("multiRead header");
            }
        }
        return ops.toArray(new Op[0]);
    }

    private static <R extends Record> R read(BinaryInputArchive in, R record) throws CreateModes.Refusal {
        if (!Jute.read(in, record)) {
            throw marshalling(record.getClass().getSimpleName());
        }
        return record;
    }

    private static CreateModes.Refusal marshalling(String what) {
        return new CreateModes.Refusal(ErrorCodes.MARSHALLING_ERROR, "undecodable multi: " + what);
    }

    /**
     * The MultiResponse of zkr's per-op results. A create answers as its op asked: {@code create} with the path
     * ({@code CreateResponse}), {@code create2} and {@code createContainer} with path and Stat (as
     * {@code create2}); an error result is type -1 with its code in the header and an {@code ErrorResponse}.
     */
    static Record response(OpResult[] results, int[] opTypes) {
        return new Record() {
            @Override
            public void serialize(OutputArchive out, String tag) throws IOException {
                out.startRecord(this, tag);
                for (int i = 0; i < results.length; i++) {
                    int opType = opTypes != null && i < opTypes.length ? opTypes[i] : OpCode.CREATE2;
                    writeResult(out, tag, results[i], opType);
                }
                new MultiHeader(-1, true, -1).serialize(out, tag);
                out.endRecord(this, tag);
            }

            @Override
            public void deserialize(InputArchive in, String tag) {
                throw new UnsupportedOperationException("written only");
            }
        };
    }

    private static void writeResult(OutputArchive out, String tag, OpResult r, int opType) throws IOException {
        if (r instanceof OpResult.ErrorResult e) {
            int err = ErrorCodes.toZooKeeper(e.code());
            new MultiHeader(OpCode.ERROR, false, err).serialize(out, tag);
            new ErrorResponse(err).serialize(out, tag);
        } else if (r instanceof OpResult.CreateResult c) {
            if (opType == OpCode.CREATE) {
                new MultiHeader(OpCode.CREATE, false, 0).serialize(out, tag);
                new CreateResponse(c.path()).serialize(out, tag);
            } else {
                new MultiHeader(OpCode.CREATE2, false, 0).serialize(out, tag);
                new Create2Response(c.path(), Records.stat(c.stat())).serialize(out, tag);
            }
        } else if (r instanceof OpResult.DeleteResult) {
            new MultiHeader(OpCode.DELETE, false, 0).serialize(out, tag);
        } else if (r instanceof OpResult.SetDataResult s) {
            new MultiHeader(OpCode.SET_DATA, false, 0).serialize(out, tag);
            new SetDataResponse(Records.stat(s.stat())).serialize(out, tag);
        } else if (r instanceof OpResult.CheckResult) {
            new MultiHeader(OpCode.CHECK, false, 0).serialize(out, tag);
        } else if (r instanceof OpResult.GetDataResult d) {
            new MultiHeader(OpCode.GET_DATA, false, 0).serialize(out, tag);
            new GetDataResponse(d.data(), Records.stat(d.stat())).serialize(out, tag);
        } else if (r instanceof OpResult.GetChildrenResult c) {
            new MultiHeader(OpCode.GET_CHILDREN, false, 0).serialize(out, tag);
            new GetChildrenResponse(c.children()).serialize(out, tag);
        } else {
            throw new IOException("unknown multi result " + r);
        }
    }
}
