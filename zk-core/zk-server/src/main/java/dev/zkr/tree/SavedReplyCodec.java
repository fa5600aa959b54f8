package dev.zkr.tree;

import dev.zkr.client.OpResult;
import dev.zkr.client.Stat;
import dev.zkr.client.ZkException;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * A {@link SavedReply} in a snapshot (version 3): {@code int xid, long zxid, int code, string path, int n,
 * (byte kind, fields)^n} with kinds 1 create (path, stat), 2 delete, 3 setData (stat), 4 check, 5 error (code).
 */
final class SavedReplyCodec {

    private static final int CREATE = 1;
    private static final int DELETE = 2;
    private static final int SET_DATA = 3;
    private static final int CHECK = 4;
    private static final int ERROR = 5;

    private SavedReplyCodec() {
    }

    static void write(DataOutput out, SavedReply r) throws IOException {
        out.writeInt(r.xid());
        out.writeLong(r.zxid());
        out.writeInt(r.code().intValue());
        TxnCodec.writeString(out, r.path());
        out.writeInt(r.results().size());
        for (OpResult o : r.results()) {
            if (o instanceof OpResult.CreateResult c) {
                out.writeByte(CREATE);
                TxnCodec.writeString(out, c.path());
                writeStat(out, c.stat());
            } else if (o instanceof OpResult.DeleteResult) {
                out.writeByte(DELETE);
            } else if (o instanceof OpResult.SetDataResult s) {
                out.writeByte(SET_DATA);
                writeStat(out, s.stat());
            } else if (o instanceof OpResult.CheckResult) {
                out.writeByte(CHECK);
            } else if (o instanceof OpResult.ErrorResult e) {
                out.writeByte(ERROR);
                out.writeInt(e.code().intValue());
            } else {
                throw new IOException("cannot save op result " + o);
            }
        }
    }

    static SavedReply read(DataInput in) throws IOException {
        int xid = in.readInt();
        long zxid = in.readLong();
        ZkException.Code code = code(in.readInt());
        String path = TxnCodec.readString(in);
        int n = in.readInt();
        if (n < 0 || n > 100_000) {
            throw new IOException("corrupt snapshot: " + n + " results in a saved reply");
        }
        List<OpResult> results = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            int kind = in.readUnsignedByte();
            results.add(switch (kind) {
                case CREATE -> new OpResult.CreateResult(TxnCodec.readString(in), readStat(in));
                case DELETE -> new OpResult.DeleteResult();
                case SET_DATA -> new OpResult.SetDataResult(readStat(in));
                case CHECK -> new OpResult.CheckResult();
                case ERROR -> new OpResult.ErrorResult(code(in.readInt()));
                default -> throw new IOException("corrupt snapshot: saved result kind " + kind);
            });
        }
        return new SavedReply(xid, zxid, code, path, results);
    }

    private static ZkException.Code code(int value) throws IOException {
        try {
            return ZkException.Code.of(value);
        } catch (RuntimeException e) {
            throw new IOException("corrupt snapshot: error code " + value, e);
        }
    }

    private static void writeStat(DataOutput out, Stat s) throws IOException {
        out.writeLong(s.czxid());
        out.writeLong(s.mzxid());
        out.writeLong(s.pzxid());
        out.writeLong(s.ctime());
        out.writeLong(s.mtime());
        out.writeInt(s.version());
        out.writeInt(s.cversion());
        out.writeInt(s.aversion());
        out.writeLong(s.ephemeralOwner());
        out.writeInt(s.dataLength());
        out.writeInt(s.numChildren());
    }

    private static Stat readStat(DataInput in) throws IOException {
        return new Stat(in.readLong(), in.readLong(), in.readLong(), in.readLong(), in.readLong(), in.readInt(),
                in.readInt(), in.readInt(), in.readLong(), in.readInt(), in.readInt());
    }
}
