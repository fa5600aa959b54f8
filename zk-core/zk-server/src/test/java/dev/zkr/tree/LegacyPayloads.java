package dev.zkr.tree;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * Log payloads in format 1 (before the client xid was recorded), written field by field as the old code wrote
 * them, independently of {@link TxnCodec}: {@code long zxid, long time, long sessionId}, the txn tag (1 create,
 * 3 setData, 6 createSession), then the txn's fields (strings and byte arrays as int length + bytes).
 */
public final class LegacyPayloads {

    private LegacyPayloads() {
    }

    /** A persistent create with no parent-cversion surprises: owner 0, not a container. */
    public static byte[] create(long zxid, long time, long sessionId, String path, byte[] data, int parentCversion)
            throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        DataOutputStream out = header(bytes, zxid, time, sessionId);
        out.writeByte(1);
        string(out, path);
        out.writeInt(data.length);
        out.write(data);
        out.writeLong(0);
        out.writeBoolean(false);
        out.writeInt(parentCversion);
        return bytes.toByteArray();
    }

    public static byte[] setData(long zxid, long time, long sessionId, String path, byte[] data, int version)
            throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        DataOutputStream out = header(bytes, zxid, time, sessionId);
        out.writeByte(3);
        string(out, path);
        out.writeInt(data.length);
        out.write(data);
        out.writeInt(version);
        return bytes.toByteArray();
    }

    public static byte[] createSession(long zxid, long time, long sessionId, int timeoutMs, byte[] password)
            throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        DataOutputStream out = header(bytes, zxid, time, sessionId);
        out.writeByte(6);
        out.writeLong(sessionId);
        out.writeInt(timeoutMs);
        out.writeInt(password.length);
        out.write(password);
        return bytes.toByteArray();
    }

    private static DataOutputStream header(ByteArrayOutputStream bytes, long zxid, long time, long sessionId)
            throws IOException {
        DataOutputStream out = new DataOutputStream(bytes);
        out.writeLong(zxid);
        out.writeLong(time);
        out.writeLong(sessionId);
        return out;
    }

    private static void string(DataOutputStream out, String s) throws IOException {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        out.writeInt(b.length);
        out.write(b);
    }
}
