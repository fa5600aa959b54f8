package dev.zkr.testkit.ensemble;

import dev.zkr.wire.Message;
import dev.zkr.wire.MessageCodec;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;

/**
 * A blocking client of the raw wire protocol on a plain socket: it can present any session id and password (a
 * second connection of one session, as a client that moved would), and vanish without closing its session.
 */
final class WireClient implements AutoCloseable {

    private final Socket socket;
    private final DataInputStream in;
    private final DataOutputStream out;
    private int xid;
    long sessionId;
    byte[] password;

    WireClient(int port) {
        try {
            socket = new Socket();
            socket.connect(new InetSocketAddress("127.0.0.1", port), 5000);
            socket.setSoTimeout((int) Ensembles.PATIENCE.toMillis());
            socket.setTcpNoDelay(true);
            in = new DataInputStream(socket.getInputStream());
            out = new DataOutputStream(socket.getOutputStream());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Opens a new session (or re-attaches {@code sessionId} with {@code password}); returns the server's answer. */
    Message handshake(long sessionId, byte[] password, int timeoutMs, long lastZxidSeen) {
        send(new Message.ConnectRequest(Message.PROTOCOL_VERSION, sessionId,
                password == null ? new byte[16] : password, timeoutMs, lastZxidSeen));
        Message m = receive();
        if (m instanceof Message.ConnectResponse r) {
            this.sessionId = r.sessionId();
            this.password = r.password();
        }
        return m;
    }

    int nextXid() {
        return ++xid;
    }

    void send(Message m) {
        byte[] body = MessageCodec.encode(m);
        try {
            out.writeInt(body.length);
            out.write(body);
            out.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The next message the server sends (blocking up to the test's patience). */
    Message receive() {
        try {
            int len = in.readInt();
            byte[] body = new byte[len];
            in.readFully(body);
            return MessageCodec.decode(body);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The next reply, skipping watch events. */
    Message.Reply reply() {
        while (true) {
            Message m = receive();
            if (m instanceof Message.Reply r) {
                return r;
            }
        }
    }

    /** Closes the socket without ending the session (a client that crashed). */
    @Override
    public void close() {
        try {
            socket.close();
        } catch (IOException ignored) {
            // closed either way
        }
    }
}
