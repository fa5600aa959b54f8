package dev.zkr.samples.mapreduce;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A loopback TCP relay to one server, used to cut a participant's connection as a crash would: {@link #close()} drops
 * every connection and stops listening, so the client cannot reach the server any more and its session expires.
 */
final class Relay implements AutoCloseable {

    private final ServerSocket listener;
    private final String host;
    private final int port;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private volatile boolean closed;

    private Relay(ServerSocket listener, String host, int port) {
        this.listener = listener;
        this.host = host;
        this.port = port;
    }

    static Relay start(String host, int port) {
        try {
            Relay r = new Relay(new ServerSocket(0, 16, InetAddress.getLoopbackAddress()), host, port);
            daemon(r::accept, "relay-accept-" + r.port());
            return r;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open a relay port", e);
        }
    }

    int port() {
        return listener.getLocalPort();
    }

    private void accept() {
        while (!closed) {
            try {
                Socket in = listener.accept();
                Socket out;
                try {
                    out = new Socket(host, port);
                } catch (IOException e) {
                    in.close();
                    continue;
                }
                in.setTcpNoDelay(true);
                out.setTcpNoDelay(true);
                sockets.add(in);
                sockets.add(out);
                if (closed) {
                    close();
                    return;
                }
                daemon(() -> pump(in, out), "relay-up");
                daemon(() -> pump(out, in), "relay-down");
            } catch (IOException e) {
                return; // listener closed
            }
        }
    }

    private void pump(Socket from, Socket to) {
        byte[] buf = new byte[64 * 1024];
        try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
            int n;
            while ((n = in.read(buf)) >= 0) {
                out.write(buf, 0, n);
            }
        } catch (IOException e) {
            // one side closed
        } finally {
            closeQuietly(from);
            closeQuietly(to);
        }
    }

    private static void daemon(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        t.start();
    }

    private static void closeQuietly(AutoCloseable c) {
        try {
            c.close();
        } catch (Exception e) {
            // closing anyway
        }
    }

    @Override
    public void close() {
        closed = true;
        closeQuietly(listener);
        sockets.forEach(Relay::closeQuietly);
    }
}
