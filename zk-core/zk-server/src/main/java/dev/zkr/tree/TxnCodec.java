package dev.zkr.tree;

import dev.zkr.client.ZkException;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInput;
import java.io.DataInputStream;
import java.io.DataOutput;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Compact binary encoding of a {@link TxnHeader} plus {@link Txn}, for the txn log. Layout (format 2): the format
 * tag {@code 0x82}, zxid, time, sessionId (longs), the client xid (int), a one-byte txn tag, then the txn's fields;
 * strings and byte arrays are length-prefixed (int, -1 = null). The codec does no framing or checksumming: that is
 * the log's job.
 *
 * <p><b>Versions.</b> Format 1 (logs written before the xid was recorded) has no tag and no xid: zxid, time,
 * sessionId, then the txn. Its first byte is the high byte of a positive zxid, so its top bit is 0; a leading
 * byte with the top bit set is therefore always a format tag, and {@link #read} tells the two apart by that bit.
 * Format-1 payloads decode with {@link TxnHeader#NO_XID}. Format 3 (tag {@code 0x83}) is format 2 with the
 * client's acknowledgement ({@link TxnHeader#acked()}, an int) after the xid; it is written only for a txn that
 * carries one, so a log without such txns is byte for byte format 2 (docs/exactly-once.md).
 */
public final class TxnCodec {
    private static final byte CREATE = 1;
    private static final byte DELETE = 2;
    private static final byte SET_DATA = 3;
    private static final byte CHECK = 4;
    private static final byte MULTI = 5;
    private static final byte CREATE_SESSION = 6;
    private static final byte CLOSE_SESSION = 7;
    private static final byte ERROR = 8;
    private static final byte NEW_EPOCH = 9;
    /** A create with an ACL other than the open one (older logs only have CREATE: open nodes). */
    private static final byte CREATE_ACL = 10;
    private static final byte SET_ACL = 11;
    /** A create of a TTL node: as CREATE_ACL (always with its ACL), then the TTL (newer than TTL-less logs). */
    private static final byte CREATE_TTL = 12;
    /** A membership record (docs/membership.md): count, then per member id, role, host, peer port, client port. */
    private static final byte MEMBERSHIP = 13;

    /** The first byte of a format-2 payload (top bit set: a format-1 payload never starts with it). */
    static final byte FORMAT_2 = (byte) 0x82;
    /** Format 2 plus the header's acknowledgement after the xid. */
    static final byte FORMAT_3 = (byte) 0x83;

    /** Upper bound for any length field, to fail fast on corrupt input instead of allocating huge arrays. */
    private static final int MAX_LENGTH = 64 << 20;

    private TxnCodec() {
    }

    /** A decoded log entry. */
    public record Entry(TxnHeader header, Txn txn) {
    }

    /** Encodes header and txn to a new byte array. */
    public static byte[] encode(TxnHeader header, Txn txn) {
        ByteSink bytes = new ByteSink(64 + estimateSize(txn));
        try {
            write(new DataOutputStream(bytes), header, txn);
        } catch (IOException e) {
            throw new UncheckedIOException(e); // cannot happen on a byte array
        }
        return bytes.toByteArray();
    }

    /** A growable byte array without the per-write locking of {@link ByteArrayOutputStream}. */
    private static final class ByteSink extends OutputStream {
        private byte[] buf;
        private int count;

        ByteSink(int capacity) {
            buf = new byte[capacity];
        }

        @Override
        public void write(int b) {
            ensure(1);
            buf[count++] = (byte) b;
        }

        @Override
        public void write(byte[] b, int off, int len) {
            ensure(len);
            System.arraycopy(b, off, buf, count, len);
            count += len;
        }

        private void ensure(int more) {
            if (count + more > buf.length) {
                buf = Arrays.copyOf(buf, Math.max(buf.length * 2, count + more));
            }
        }

        byte[] toByteArray() {
            return count == buf.length ? buf : Arrays.copyOf(buf, count);
        }
    }

    /** Decodes what {@link #encode} produced; throws {@link IllegalArgumentException} on malformed input. */
    public static Entry decode(byte[] bytes) {
        try {
            DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes));
            Entry e = read(in);
            if (in.available() != 0) {
                throw new IllegalArgumentException("corrupt txn: " + in.available() + " trailing bytes");
            }
            return e;
        } catch (EOFException e) {
            throw new IllegalArgumentException("corrupt txn: truncated", e);
        } catch (IOException e) {
            throw new IllegalArgumentException("corrupt txn: " + e.getMessage(), e);
        }
    }

    /** Writes header and txn (format 3 if the header carries an acknowledgement, else format 2). */
    public static void write(DataOutput out, TxnHeader header, Txn txn) throws IOException {
        boolean acked = header.acked() != TxnHeader.NO_XID;
        out.writeByte(acked ? FORMAT_3 : FORMAT_2);
        out.writeLong(header.zxid());
        out.writeLong(header.time());
        out.writeLong(header.sessionId());
        out.writeInt(header.xid());
        if (acked) {
            out.writeInt(header.acked());
        }
        writeTxn(out, txn);
    }

    /**
     * Reads one entry of either format; throws {@link IOException} ({@link EOFException} if truncated) on malformed
     * input or an unknown format tag.
     */
    public static Entry read(DataInput in) throws IOException {
        byte first = in.readByte();
        TxnHeader header;
        if (first == FORMAT_2) {
            header = new TxnHeader(in.readLong(), in.readLong(), in.readLong(), in.readInt());
        } else if (first == FORMAT_3) {
            header = new TxnHeader(in.readLong(), in.readLong(), in.readLong(), in.readInt(), in.readInt());
        } else if (first >= 0) {
            // format 1: the byte read is the zxid's high byte
            long zxid = first;
            for (int i = 0; i < 7; i++) {
                zxid = (zxid << 8) | in.readUnsignedByte();
            }
            header = new TxnHeader(zxid, in.readLong(), in.readLong(), TxnHeader.NO_XID);
        } else {
            throw new IOException("unknown txn payload format 0x" + Integer.toHexString(first & 0xFF));
        }
        return new Entry(header, readTxn(in, true));
    }

    private static void writeTxn(DataOutput out, Txn txn) throws IOException {
        if (txn instanceof Txn.CreateNode c) {
            boolean ttl = c.ttlMs() > 0;
            boolean open = !ttl && c.acls().equals(dev.zkr.client.Acls.OPEN_UNSAFE);
            out.writeByte(ttl ? CREATE_TTL : open ? CREATE : CREATE_ACL);
            writeString(out, c.path());
            writeBytes(out, c.data());
            out.writeLong(c.ephemeralOwner());
            out.writeBoolean(c.container());
            out.writeInt(c.parentCversion());
            if (!open) {
                writeAcls(out, c.acls());
            }
            if (ttl) {
                out.writeLong(c.ttlMs());
            }
        } else if (txn instanceof Txn.SetAcl sa) {
            out.writeByte(SET_ACL);
            writeString(out, sa.path());
            writeAcls(out, sa.acls());
            out.writeInt(sa.aversion());
        } else if (txn instanceof Txn.DeleteNode d) {
            out.writeByte(DELETE);
            writeString(out, d.path());
        } else if (txn instanceof Txn.SetData s) {
            out.writeByte(SET_DATA);
            writeString(out, s.path());
            writeBytes(out, s.data());
            out.writeInt(s.version());
        } else if (txn instanceof Txn.Check c) {
            out.writeByte(CHECK);
            writeString(out, c.path());
            out.writeInt(c.version());
        } else if (txn instanceof Txn.Multi m) {
            out.writeByte(MULTI);
            out.writeInt(m.ops().size());
            for (Txn op : m.ops()) {
                writeTxn(out, op);
            }
        } else if (txn instanceof Txn.CreateSession cs) {
            out.writeByte(CREATE_SESSION);
            out.writeLong(cs.sessionId());
            out.writeInt(cs.timeoutMs());
            writeBytes(out, cs.password());
        } else if (txn instanceof Txn.CloseSession cs) {
            out.writeByte(CLOSE_SESSION);
            out.writeLong(cs.sessionId());
            out.writeInt(0); // formerly the session's ephemeral paths; kept as an empty list (same format)
        } else if (txn instanceof Txn.Error e) {
            out.writeByte(ERROR);
            out.writeInt(e.code().intValue());
            writeString(out, e.path());
            out.writeInt(e.multiCodes().size());
            for (ZkException.Code c : e.multiCodes()) {
                out.writeInt(c.intValue());
            }
        } else if (txn instanceof Txn.NewEpoch ne) {
            out.writeByte(NEW_EPOCH);
            out.writeLong(ne.epoch());
            out.writeInt(ne.leaderId());
        } else if (txn instanceof Txn.Membership m) {
            out.writeByte(MEMBERSHIP);
            writeMembers(out, m);
        } else {
            throw new IllegalArgumentException("unknown txn " + txn);
        }
    }

    private static Txn readTxn(DataInput in, boolean topLevel) throws IOException {
        byte tag = in.readByte();
        switch (tag) {
            case CREATE:
                return new Txn.CreateNode(requirePath(in), readBytes(in), in.readLong(), in.readBoolean(),
                        in.readInt());
            case CREATE_ACL:
                return new Txn.CreateNode(requirePath(in), readBytes(in), in.readLong(), in.readBoolean(),
                        in.readInt(), readAcls(in));
            case CREATE_TTL: {
                Txn.CreateNode c = new Txn.CreateNode(requirePath(in), readBytes(in), in.readLong(), in.readBoolean(),
                        in.readInt(), readAcls(in), in.readLong());
                if (c.ttlMs() <= 0) {
                    throw new IOException("bad TTL " + c.ttlMs() + " for " + c.path());
                }
                return c;
            }
            case SET_ACL:
                return new Txn.SetAcl(requirePath(in), readAcls(in), in.readInt());
            case DELETE:
                return new Txn.DeleteNode(requirePath(in));
            case SET_DATA:
                return new Txn.SetData(requirePath(in), readBytes(in), in.readInt());
            case CHECK:
                return new Txn.Check(requirePath(in), in.readInt());
            case MULTI: {
                if (!topLevel) {
                    throw new IOException("nested multi");
                }
                int n = readLength(in);
                List<Txn> ops = new ArrayList<>(Math.min(n, 1024));
                for (int i = 0; i < n; i++) {
                    ops.add(readTxn(in, false));
                }
                try {
                    return new Txn.Multi(ops);
                } catch (IllegalArgumentException e) {
                    throw new IOException(e.getMessage());
                }
            }
            case CREATE_SESSION:
                return new Txn.CreateSession(in.readLong(), in.readInt(), nonNull(readBytes(in)));
            case CLOSE_SESSION: {
                long id = in.readLong();
                int n = readLength(in);
                for (int i = 0; i < n; i++) {
                    requirePath(in); // older records list the paths: ignored, the tree derives the same set
                }
                return new Txn.CloseSession(id);
            }
            case ERROR: {
                ZkException.Code code = ZkException.Code.of(in.readInt());
                String path = readString(in);
                int n = readLength(in);
                List<ZkException.Code> codes = new ArrayList<>(Math.min(n, 1024));
                for (int i = 0; i < n; i++) {
                    codes.add(ZkException.Code.of(in.readInt()));
                }
                return new Txn.Error(code, path, codes);
            }
            case NEW_EPOCH: {
                if (!topLevel) {
                    throw new IOException("EPOCH record inside a multi");
                }
                return new Txn.NewEpoch(in.readLong(), in.readInt());
            }
            case MEMBERSHIP: {
                if (!topLevel) {
                    throw new IOException("membership record inside a multi");
                }
                return readMembers(in);
            }
            default:
                throw new IOException("unknown txn tag " + tag);
        }
    }

    /** A membership's members: count, then (id, role ordinal, host, peer port, client port) per member. */
    static void writeMembers(DataOutput out, Txn.Membership m) throws IOException {
        out.writeInt(m.members().size());
        for (dev.zkr.client.EnsembleMember x : m.members()) {
            out.writeInt(x.id());
            out.writeByte(x.role().ordinal());
            writeString(out, x.host());
            out.writeInt(x.peerPort());
            out.writeInt(x.clientPort());
        }
    }

    static Txn.Membership readMembers(DataInput in) throws IOException {
        int n = readLength(in);
        List<dev.zkr.client.EnsembleMember> members = new ArrayList<>(Math.min(n, 256));
        dev.zkr.client.EnsembleMember.Role[] roles = dev.zkr.client.EnsembleMember.Role.values();
        try {
            for (int i = 0; i < n; i++) {
                int id = in.readInt();
                int role = in.readUnsignedByte();
                if (role >= roles.length) {
                    throw new IOException("bad member role " + role);
                }
                String host = readString(in);
                members.add(new dev.zkr.client.EnsembleMember(id, roles[role], host, in.readInt(), in.readInt()));
            }
            return new Txn.Membership(members);
        } catch (IllegalArgumentException | NullPointerException e) {
            throw new IOException("bad membership record: " + e.getMessage());
        }
    }

    /**
     * The membership a log payload carries, or null for any other txn: a look at the txn tag first, so that the
     * consensus core's check of every appended record decodes only membership records.
     */
    public static Txn.Membership membershipOf(byte[] payload) {
        // the tag follows the header: format 2's (zxid, time, session, xid) or format 3's (and the acknowledgement
        // a ZooKeeper client's or an exactly-once write carries); never format 1 (it has no xid)
        int tag = payload.length == 0 ? -1 : payload[0] == FORMAT_2 ? 29 : payload[0] == FORMAT_3 ? 33 : -1;
        if (tag < 0 || payload.length <= tag || payload[tag] != MEMBERSHIP) {
            return null;
        }
        return decode(payload).txn() instanceof Txn.Membership m ? m : null;
    }

    /** An ACL: count, then (perms, scheme, id) per entry. */
    static void writeAcls(DataOutput out, List<dev.zkr.client.Acl> acls) throws IOException {
        out.writeInt(acls.size());
        for (dev.zkr.client.Acl a : acls) {
            out.writeInt(a.perms());
            writeString(out, a.id().scheme());
            writeString(out, a.id().id());
        }
    }

    static List<dev.zkr.client.Acl> readAcls(DataInput in) throws IOException {
        int n = readLength(in);
        if (n == 0 || n > 1 << 16) {
            throw new IOException("bad ACL length " + n);
        }
        List<dev.zkr.client.Acl> acls = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            int perms = in.readInt();
            String scheme = readString(in);
            String id = readString(in);
            if (scheme == null || id == null) {
                throw new IOException("null ACL id");
            }
            acls.add(new dev.zkr.client.Acl(perms, new dev.zkr.client.Id(scheme, id)));
        }
        return acls;
    }

    private static String requirePath(DataInput in) throws IOException {
        String s = readString(in);
        if (s == null || s.isEmpty() || s.charAt(0) != '/') {
            throw new IOException("bad path " + s);
        }
        return s;
    }

    private static byte[] nonNull(byte[] b) throws IOException {
        if (b == null) {
            throw new IOException("unexpected null bytes");
        }
        return b;
    }

    private static int readLength(DataInput in) throws IOException {
        int n = in.readInt();
        if (n < 0 || n > MAX_LENGTH) {
            throw new IOException("bad length " + n);
        }
        return n;
    }

    private static int estimateSize(Txn txn) {
        if (txn instanceof Txn.CreateNode c) {
            return c.path().length() + (c.data() == null ? 0 : c.data().length);
        } else if (txn instanceof Txn.SetData s) {
            return s.path().length() + (s.data() == null ? 0 : s.data().length);
        }
        return 64;
    }

    /** Writes a length-prefixed UTF-8 string (length -1 = null). */
    static void writeString(DataOutput out, String s) throws IOException {
        writeBytes(out, s == null ? null : s.getBytes(StandardCharsets.UTF_8));
    }

    static String readString(DataInput in) throws IOException {
        byte[] b = readBytes(in);
        return b == null ? null : new String(b, StandardCharsets.UTF_8);
    }

    /** Writes a length-prefixed byte array (length -1 = null). */
    static void writeBytes(DataOutput out, byte[] b) throws IOException {
        if (b == null) {
            out.writeInt(-1);
        } else {
            out.writeInt(b.length);
            out.write(b);
        }
    }

    static byte[] readBytes(DataInput in) throws IOException {
        int n = in.readInt();
        if (n == -1) {
            return null;
        }
        if (n < 0 || n > MAX_LENGTH) {
            throw new IOException("bad length " + n);
        }
        byte[] b = new byte[n];
        in.readFully(b);
        return b;
    }
}
