package dev.zkr.server.zookeeper;

import dev.zkr.client.ZkException;
import dev.zkr.wire.Message;
import io.netty.buffer.ByteBuf;
import org.apache.jute.BinaryInputArchive;
import org.apache.jute.InputArchive;
import org.apache.jute.OutputArchive;
import org.apache.jute.Record;
import org.apache.zookeeper.proto.ConnectResponse;

import java.io.IOException;

/**
 * ZooKeeper's handshake ↔ zkr's. A ConnectRequest is {@code int protocolVersion, long lastZxidSeen, int timeOut,
 * long sessionId, buffer passwd} and, from clients since ZooKeeper 3.4, {@code boolean readOnly}; the
 * ConnectResponse is {@code int protocolVersion, int timeOut, long sessionId, buffer passwd} with the
 * {@code readOnly} byte exactly when the request had it (ZooKeeper's {@code ProtocolManager}).
 */
final class Handshake {

    /** What ZooKeeper's client sends as protocolVersion, and its server answers. */
    static final int PROTOCOL_VERSION = 0;
    /** Size of a ConnectRequest without readOnly byte and with an absent (-1) password: the smallest there is. */
    static final int MIN_REQUEST = 4 + 8 + 4 + 8 + 4;

    /**
     * A decoded ConnectRequest.
     *
     * @param request       as zkr's handshake
     * @param readOnlyField whether the request carried the readOnly byte (the response carries it back iff so)
     * @param readOnly      its value: the client accepts a read-only server (zkr never is one)
     */
    record Connect(Message.ConnectRequest request, boolean readOnlyField, boolean readOnly) {
    }

    private Handshake() {
    }

    /**
     * Decodes a first frame. ZooKeeper reads any first frame as a ConnectRequest and ignores what follows it; this
     * is stricter, so a request sent before the handshake, or garbage, is refused rather than misread: the
     * protocolVersion must be 0 and nothing may follow the record but the readOnly byte.
     */
    static Connect decode(ByteBuf frame) {
        int size = frame.readableBytes();
        BinaryInputArchive in = Jute.reader(frame);
        int version;
        long lastZxidSeen;
        int timeOut;
        long sessionId;
        byte[] passwd;
        try {
            version = in.readInt("protocolVersion");
            lastZxidSeen = in.readLong("lastZxidSeen");
            timeOut = in.readInt("timeOut");
            sessionId = in.readLong("sessionId");
            passwd = in.readBuffer("passwd");
        } catch (IOException | RuntimeException e) {
            throw bad("a first frame of " + size + " bytes is not a ConnectRequest (" + e.getMessage() + ")");
        }
        if (version != PROTOCOL_VERSION) {
            throw bad("ConnectRequest with protocolVersion " + version + " (ZooKeeper clients send 0)");
        }
        boolean field = false;
        boolean readOnly = false;
        int rest = frame.readableBytes();
        if (rest == 1) {
            field = true;
            readOnly = frame.readByte() != 0;
        } else if (rest > 1) {
            throw bad(rest + " bytes after a ConnectRequest: not a handshake (a request before it?)");
        }
        return new Connect(new Message.ConnectRequest(Message.PROTOCOL_VERSION, sessionId, passwd, timeOut,
                lastZxidSeen), field, readOnly);
    }

    /** The ConnectResponse for zkr's: the session, its password and negotiated timeout; never read-only. */
    static void accepted(Message.ConnectResponse r, boolean readOnlyField, Jute.Writer w, ByteBuf out) {
        write(new ConnectResponse(PROTOCOL_VERSION, r.negotiatedTimeoutMs(), r.sessionId(), r.password(), false),
                readOnlyField, w, out);
    }

    /**
     * Answers a refused handshake: true if the client gets a ConnectResponse before the close. ZooKeeper answers an
     * unknown or expired session and a wrong password with timeOut 0, session 0 and a zeroed password (the client
     * reports the session expired); it refuses every other handshake (a client ahead of the server, a server that
     * cannot serve) by closing the connection without an answer, and the client tries another server.
     */
    static boolean refused(Message.ConnectRefused r, boolean readOnlyField, Jute.Writer w, ByteBuf out) {
        if (r.code() != ZkException.Code.SESSION_EXPIRED.intValue()) {
            return false;
        }
        write(new ConnectResponse(PROTOCOL_VERSION, 0, 0, new byte[16], false), readOnlyField, w, out);
        return true;
    }

    private static void write(ConnectResponse response, boolean readOnlyField, Jute.Writer w, ByteBuf out) {
        w.frame(out, readOnlyField ? response : withoutReadOnly(response));
    }

    /** The response as a server before 3.4 writes it, for a client that sent no readOnly byte. */
    private static Record withoutReadOnly(ConnectResponse r) {
        return new Record() {
            @Override
            public void serialize(OutputArchive out, String tag) throws IOException {
                out.startRecord(this, tag);
                out.writeInt(r.getProtocolVersion(), "protocolVersion");
                out.writeInt(r.getTimeOut(), "timeOut");
                out.writeLong(r.getSessionId(), "sessionId");
                out.writeBuffer(r.getPasswd(), "passwd");
                out.endRecord(this, tag);
            }

            @Override
            public void deserialize(InputArchive in, String tag) {
                throw new UnsupportedOperationException("written only");
            }
        };
    }

    private static ZooKeeperProtocolException bad(String why) {
        return new ZooKeeperProtocolException(ZooKeeperProtocolException.Kind.BAD_HANDSHAKE, why);
    }
}
