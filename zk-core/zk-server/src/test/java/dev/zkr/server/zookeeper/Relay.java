package dev.zkr.server.zookeeper;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One loopback address in front of a server that can change: new connections go to the current {@link #target},
 * {@link #cut()} drops the current ones. Lets a client whose host list has one entry meet another server.
 */
final class Relay implements AutoCloseable {

    private final ServerSocket listener;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private final AtomicInteger accepted = new AtomicInteger();
    private volatile int targetPort;
    private volatile boolean closed;

    Relay(int targetPort) throws IOException {
        this.targetPort = targetPort;
        this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread t = new Thread(this::acceptLoop, "relay-accept");
        t.setDaemon(true);
        t.start();
    }

    String connectString() {
        return "127.0.0.1:" + listener.getLocalPort();
    }

    /** Where new connections go from now on. */
    void target(int port) {
        this.targetPort = port;
    }

    /** Connections accepted so far. */
    int connections() {
        return accepted.get();
    }

    /** Closes every current connection (both sides see it). */
    void cut() {
        for (Socket s : sockets) {
            try {
                s.close();
            } catch (IOException ignored) {
                // closing anyway
            }
        }
        sockets.clear();
    }

    private void acceptLoop() {
        while (!closed) {
            try {
                Socket client = listener.accept();
                accepted.incrementAndGet();
                Socket server = new Socket();
                server.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), targetPort), 2000);
                sockets.add(client);
                sockets.add(server);
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
                    out.write(buf, 0, n);
                    out.flush();
                }
            } catch (IOException e) {
                // closed
            } finally {
                try {
                    from.close();
                    to.close();
                } catch (IOException ignored) {
                    // closing anyway
                }
            }
        }, "relay-pipe");
        t.setDaemon(true);
        t.start();
    }

    @Override
    public void close() throws IOException {
        closed = true;
        listener.close();
        cut();
    }
}
