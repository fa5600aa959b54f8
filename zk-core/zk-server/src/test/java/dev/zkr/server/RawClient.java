package dev.zkr.server;

import dev.zkr.wire.Message;
import dev.zkr.wire.MessageCodec;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

/** A blocking test client speaking the raw wire protocol over a plain socket (and able to send anything). */
public final class RawClient implements AutoCloseable {

    private final Socket socket;
    private final DataInputStream in;
    private final DataOutputStream out;
    private int xid;
    public long sessionId;
    byte[] password;

    public RawClient(int port) {
        this(port, 0);
    }

    /** Connects with the given socket receive buffer (0: the system's default). */
    public RawClient(int port, int receiveBuffer) {
        try {
            socket = new Socket();
            if (receiveBuffer > 0) {
                socket.setReceiveBufferSize(receiveBuffer);
            }
            socket.connect(new InetSocketAddress("127.0.0.1", port), 5000);
            socket.setSoTimeout(10_000);
            socket.setTcpNoDelay(true);
            in = new DataInputStream(socket.getInputStream());
            out = new DataOutputStream(socket.getOutputStream());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Connects and opens a new session. */
    public static RawClient session(int port, int timeoutMs) {
        return session(port, timeoutMs, 0);
    }

    /** Connects with the given socket receive buffer and opens a new session. */
    public static RawClient session(int port, int timeoutMs, int receiveBuffer) {
        RawClient c = new RawClient(port, receiveBuffer);
        c.handshake(0, null, timeoutMs);
        return c;
    }

    public Message.ConnectResponse handshake(long sessionId, byte[] password, int timeoutMs) {
        send(new Message.ConnectRequest(Message.PROTOCOL_VERSION, sessionId, password == null ? new byte[16]
                : password, timeoutMs, 0));
        Message m = receive();
        Message.ConnectResponse r = assertInstanceOf(Message.ConnectResponse.class, m);
        this.sessionId = r.sessionId();
        this.password = r.password();
        return r;
    }

    public int nextXid() {
        return ++xid;
    }

    public void send(Message m) {
        byte[] body = MessageCodec.encode(m);
        sendRaw(frame(body));
    }

    public static byte[] frame(byte[] body) {
        byte[] f = new byte[body.length + 4];
        f[0] = (byte) (body.length >>> 24);
        f[1] = (byte) (body.length >>> 16);
        f[2] = (byte) (body.length >>> 8);
        f[3] = (byte) body.length;
        System.arraycopy(body, 0, f, 4, body.length);
        return f;
    }

    public void sendRaw(byte[] bytes) {
        try {
            out.write(bytes);
            out.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The next message; fails on timeout or EOF. */
    public Message receive() {
        try {
            int len = in.readInt();
            byte[] body = new byte[len];
            in.readFully(body);
            return MessageCodec.decode(body);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The next reply, skipping nothing: fails if the next message is not a reply to this xid. */
    public Message.Reply reply(int expectedXid) {
        Message.Reply r = assertInstanceOf(Message.Reply.class, receive());
        assertEquals(expectedXid, r.xid(), "reply out of order");
        return r;
    }

    /** Sends a request and returns its reply. */
    public Message.Reply call(java.util.function.IntFunction<Message.Request> request) {
        int x = nextXid();
        send(request.apply(x));
        return reply(x);
    }

    /** True if the server closes the connection within the timeout (messages before the close are skipped). */
    public boolean closedByServer(int timeoutMs) {
        try {
            socket.setSoTimeout(timeoutMs);
            while (true) {
                int len = in.readInt();
                in.skipNBytes(len);
            }
        } catch (EOFException | java.net.SocketException e) {
            return true;
        } catch (SocketTimeoutException e) {
            return false;
        } catch (IOException e) {
            return true;
        }
    }

    /**
     * Every message the server sends until it closes the connection, failing on a frame that is empty or does not
     * decode (a server must never send one) and on a connection still open after the timeout.
     */
    /**
     * Reads and discards bytes until the server closes the connection; returns how many were read. Fails if
     * nothing arrives for {@code quietMs} while the connection stays open.
     */
    public long drainUntilClosed(int quietMs) {
        long total = 0;
        byte[] buf = new byte[64 * 1024];
        try {
            socket.setSoTimeout(quietMs);
            while (true) {
                int n;
                try {
                    n = in.read(buf);
                } catch (java.net.SocketException reset) {
                    return total;
                }
                if (n < 0) {
                    return total;
                }
                total += n;
            }
        } catch (SocketTimeoutException e) {
            throw new AssertionError("server did not close the connection: nothing for " + quietMs
                    + " ms after " + total + " bytes");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public java.util.List<Message> readUntilClosed(int timeoutMs) {
        java.util.List<Message> messages = new java.util.ArrayList<>();
        try {
            socket.setSoTimeout(timeoutMs);
            while (true) {
                int len;
                try {
                    len = in.readInt();
                } catch (EOFException | java.net.SocketException closed) {
                    return messages;
                }
                if (len <= 0) {
                    throw new AssertionError("server sent a frame of " + len + " bytes after " + messages);
                }
                byte[] body = new byte[len];
                in.readFully(body);
                messages.add(MessageCodec.decode(body));
            }
        } catch (SocketTimeoutException e) {
            throw new AssertionError("server did not close the connection within " + timeoutMs + " ms; got "
                    + messages);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() {
        try {
            socket.close();
        } catch (IOException ignored) {
            // closing a test socket
        }
    }
}
