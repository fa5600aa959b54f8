package dev.zkr.contract;

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
 * A loopback TCP forwarder in front of a real server, to break connections the way networks do: {@link #cut()}
 * resets them, {@link #blackHole()} silently stops forwarding (the sockets stay open), and while
 * {@link #refuse(boolean) refusing} new connections are closed at once.
 */
final class TcpProxy implements AutoCloseable {

    private final ServerSocket listener;
    private final int targetPort;
    private final List<Pipe> pipes = new CopyOnWriteArrayList<>();
    private volatile boolean refusing;
    private volatile boolean closed;
    private final Object holdLock = new Object();
    private boolean holding;

    TcpProxy(int targetPort) throws IOException {
        this.targetPort = targetPort;
        this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread acceptor = new Thread(this::acceptLoop, "tcp-proxy-accept");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    String connectString() {
        return "127.0.0.1:" + listener.getLocalPort();
    }

    void refuse(boolean refuse) {
        this.refusing = refuse;
    }

    /** Closes every current connection (both sides see it). */
    void cut() {
        pipes.forEach(Pipe::close);
        pipes.clear();
    }

    /** While holding, what the server sends waits in the proxy; releasing forwards it in order. */
    void hold(boolean hold) {
        synchronized (holdLock) {
            holding = hold;
            holdLock.notifyAll();
        }
    }

    private void awaitRelease() throws IOException {
        synchronized (holdLock) {
            while (holding && !closed) {
                try {
                    holdLock.wait(100);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IOException("interrupted while holding", e);
                }
            }
        }
    }

    /** Current connections stop forwarding in both directions but stay open. */
    void blackHole() {
        pipes.forEach(p -> p.blackHoled = true);
    }

    private void acceptLoop() {
        while (!closed) {
            try {
                Socket client = listener.accept();
                if (refusing) {
                    client.close();
                    continue;
                }
                Socket server = new Socket();
                server.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), targetPort), 2000);
                Pipe pipe = new Pipe(client, server);
                pipes.add(pipe);
                pipe.start();
            } catch (IOException e) {
                if (closed) {
                    return;
                }
            }
        }
    }

    @Override
    public void close() throws IOException {
        closed = true;
        listener.close();
        cut();
    }

    private final class Pipe {
        final Socket a;
        final Socket b;
        volatile boolean blackHoled;

        Pipe(Socket a, Socket b) {
            this.a = a;
            this.b = b;
        }

        void start() {
            pump(a, b);
            pump(b, a);
        }

        private void pump(Socket from, Socket to) {
            Thread t = new Thread(() -> {
                byte[] buf = new byte[64 * 1024];
                try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                    int n;
                    while ((n = in.read(buf)) >= 0) {
                        if (from == b) {
                            awaitRelease();
                        }
                        if (!blackHoled) {
                            out.write(buf, 0, n);
                            out.flush();
                        }
                    }
                } catch (IOException e) {
                    // connection closed
                } finally {
                    close();
                }
            }, "tcp-proxy-pipe");
            t.setDaemon(true);
            t.start();
        }

        void close() {
            try {
                a.close();
            } catch (IOException ignored) {
                // closing anyway
            }
            try {
                b.close();
            } catch (IOException ignored) {
                // closing anyway
            }
        }
    }
}
