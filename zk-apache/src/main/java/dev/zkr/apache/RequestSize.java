package dev.zkr.apache;

import dev.zkr.client.Op;

import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Upper bounds of the encoded size of ZooKeeper requests. A ZooKeeper server closes the connection of a client whose
 * request exceeds its {@code jute.maxbuffer}, so zkr refuses such requests before sending them.
 */
final class RequestSize {

    /** Request header, length prefixes, version, flags and the open ACL, with room to spare. */
    private static final int OVERHEAD = 64;

    private RequestSize() {
    }

    /** A single create or setData. */
    static long of(String path, byte[] data) {
        return OVERHEAD + utf8Length(path) + (data == null ? 0 : data.length);
    }

    /** A multi: every operation with its header, plus the closing header. */
    static long of(List<Op> ops) {
        long size = OVERHEAD;
        for (Op op : ops) {
            byte[] data = op instanceof Op.Create c ? c.data() : op instanceof Op.SetData s ? s.data() : null;
            size += 16 + of(op.path(), data);
        }
        return size;
    }

    private static int utf8Length(String s) {
        return s == null ? 0 : s.getBytes(StandardCharsets.UTF_8).length;
    }
}
