package dev.zkr.server.zookeeper;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.apache.jute.Record;
import org.apache.zookeeper.proto.ConnectResponse;
import org.apache.zookeeper.proto.ReplyHeader;
import org.apache.zookeeper.proto.RequestHeader;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** A raw socket speaking ZooKeeper's client protocol byte by byte (with the Apache client's records), for tests. */
final class ZkSocket implements AutoCloseable {

    private final Socket socket;
    private final DataInputStream in;

    ZkSocket(int port) {
        try {
            socket = new Socket(InetAddress.getLoopbackAddress(), port);
            socket.setSoTimeout((int) ApacheClients.PATIENCE.toMillis());
            in = new DataInputStream(socket.getInputStream());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    void send(byte[] bytes) {
        try {
            socket.getOutputStream().write(bytes);
            socket.getOutputStream().flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Sends one frame: its 4-byte length, then the payload. */
    void sendFrame(byte[] payload) {
        ByteBuf f = ApacheWire.framed(payload);
        byte[] b = new byte[f.readableBytes()];
        f.readBytes(b);
        send(b);
    }

    /** Sends a request frame: header and record. */
    void request(int xid, int type, Record record) {
        sendFrame(ApacheWire.bytes(new RequestHeader(xid, type), record));
    }

    /** A new session's handshake; returns the server's ConnectResponse. */
    ConnectResponse handshake() {
        ByteBuf c = ApacheWire.newSession();
        byte[] b = new byte[c.readableBytes()];
        c.readBytes(b);
        sendFrame(b);
        ConnectResponse r = new ConnectResponse();
        readFrame(r, null);
        return r;
    }

    /** Reads one reply frame: its header, then {@code response} when err is 0. */
    ReplyHeader reply(Record response) {
        ReplyHeader h = new ReplyHeader();
        readFrame(h, response);
        return h;
    }

    private void readFrame(Record first, Record second) {
        try {
            int length = in.readInt();
            byte[] b = new byte[length];
            in.readFully(b);
            ByteBuf frame = Unpooled.wrappedBuffer(b);
            var archive = ApacheWire.archive(frame.nioBuffer());
            first.deserialize(archive, "first");
            if (second != null && !(first instanceof ReplyHeader h && h.getErr() != 0)) {
                second.deserialize(archive, "second");
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Everything the server sends until it closes the connection (fails if it does not within the patience). */
    String readUntilClosed() {
        StringBuilder sb = new StringBuilder();
        byte[] buf = new byte[8192];
        try {
            int n;
            while ((n = in.read(buf)) >= 0) {
                sb.append(new String(buf, 0, n, StandardCharsets.UTF_8));
            }
            return sb.toString();
        } catch (SocketTimeoutException e) {
            throw new AssertionError("the server did not close the connection; got so far: " + sb);
        } catch (IOException e) {
            return sb.toString(); // reset by the server
        }
    }

    /** Asserts the server closes the connection without sending anything more. */
    void assertClosedWithoutAnswer() {
        assertEquals("", readUntilClosed(), "bytes before the close");
    }

    /** True if the server closed the connection (EOF), waiting for it. */
    boolean closedByServer() {
        try {
            return in.read() < 0;
        } catch (EOFException | SocketTimeoutException e) {
            return e instanceof EOFException;
        } catch (IOException e) {
            return true;
        }
    }

    @Override
    public void close() {
        try {
            socket.close();
        } catch (IOException ignored) {
            // closing anyway
        }
    }
}
