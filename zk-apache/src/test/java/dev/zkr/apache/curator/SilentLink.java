package dev.zkr.apache.curator;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A loopback TCP forwarder in front of a server, for a partition of one client: after {@link #silence()} its
 * connections stay open but nothing goes through either way, and new connections are accepted and never answered,
 * so the client hears nothing (no reset, no refusal) and the server, hearing nothing either, expires its session.
 */
final class SilentLink implements AutoCloseable {

    private final ServerSocket listener;
    private final int targetPort;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private volatile boolean silent;
    private volatile boolean closed;

    SilentLink(int targetPort) throws IOException {
        this.targetPort = targetPort;
        this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread acceptor = new Thread(this::acceptLoop, "silent-link-accept");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    String connectString() {
        return InetAddress.getLoopbackAddress().getHostAddress() + ":" + listener.getLocalPort();
    }

    /** From now on nothing goes through, on the connections open and on new ones. */
    void silence() {
        silent = true;
    }

    private void acceptLoop() {
        while (!closed) {
            try {
                Socket client = listener.accept();
                sockets.add(client);
                if (silent) {
                    continue; // kept open, never answered
                }
                Socket server = new Socket();
                sockets.add(server);
                server.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), targetPort), 2000);
                pump(client, server);
                pump(server, client);
            } catch (IOException e) {
                if (closed) {
                    return;
                }
            }
        }
    }

    private void pump(Socket from, Socket to) {
        Thread t = new Thread(() -> {
            byte[] buf = new byte[64 * 1024];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                int n;
                while ((n = in.read(buf)) >= 0) {
                    if (!silent) {
                        out.write(buf, 0, n);
                        out.flush();
                    }
                }
            } catch (IOException e) {
                // closed
            } finally {
                closeQuietly(from);
                if (!silent) {
                    closeQuietly(to); // silent: the other side never learns of the close, as in a partition
                }
            }
        }, "silent-link-pipe");
        t.setDaemon(true);
        t.start();
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException ignored) {
            // closing anyway
        }
    }

    @Override
    public void close() throws IOException {
        closed = true;
        listener.close();
        sockets.forEach(SilentLink::closeQuietly);
    }
}
