package dev.zkr.chaos.net;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A TCP proxy in front of one server's peer (or election) port, used by one other server only: the directed link
 * {@code from → to}. While the link is cut, nothing crosses it in either direction of its connections — bytes read
 * are held, new connections are accepted but not passed on, a close is not passed on — as when a network drops
 * packets: the servers notice only through their own timeouts. When it heals, what was held goes through (as TCP
 * retransmission would deliver it), including the closes of connections a server gave up on meanwhile.
 */
public final class LinkProxy implements AutoCloseable {

    private static final int CONNECT_TIMEOUT_MS = 2_000;
    /** How long a target that refuses is tried again before the dialler's connection is reset. */
    static final long TARGET_WAIT_MS = 2_000;
    static final long RETRY_MS = 20;

    private final int from;
    private final int to;
    private final int targetPort;
    private final ServerSocket listener;
    private final Object gate = new Object();
    private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
    private boolean cut; // guarded by gate
    private volatile boolean closed;

    private LinkProxy(int from, int to, int targetPort, ServerSocket listener) {
        this.from = from;
        this.to = to;
        this.targetPort = targetPort;
        this.listener = listener;
    }

    /** Listens on a free loopback port and forwards every connection to {@code 127.0.0.1:targetPort}. */
    public static LinkProxy start(int from, int to, int targetPort) {
        try {
            ServerSocket s = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
            LinkProxy p = new LinkProxy(from, to, targetPort, s);
            daemon("proxy-" + from + "-" + to + "-accept", p::acceptLoop);
            return p;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open a proxy port", e);
        }
    }

    /** The port the {@code from} server is told to dial for {@code to}. */
    public int port() {
        return listener.getLocalPort();
    }

    public int from() {
        return from;
    }

    public int to() {
        return to;
    }

    /** Stops passing anything on, until {@link #heal()}. */
    public void cut() {
        synchronized (gate) {
            cut = true;
        }
    }

    /** Passes on again what was held and what comes. */
    public void heal() {
        synchronized (gate) {
            cut = false;
            gate.notifyAll();
        }
    }

    public boolean isCut() {
        synchronized (gate) {
            return cut;
        }
    }

    private void awaitOpen() throws InterruptedException {
        synchronized (gate) {
            while (cut && !closed) {
                gate.wait();
            }
        }
    }

    private void acceptLoop() {
        while (!closed) {
            try {
                Socket in = listener.accept();
                in.setTcpNoDelay(true);
                sockets.add(in);
                daemon("proxy-" + from + "-" + to + "-connect", () -> connect(in));
            } catch (IOException e) {
                if (!closed) {
                    pauseBriefly();
                }
            }
        }
    }

    /**
     * Connects {@code in} to the target once the link is open. A target not listening (yet) is tried again every
     * {@value #RETRY_MS} ms for {@value #TARGET_WAIT_MS} ms before {@code in} is reset: a dialler could not tell
     * the proxy's accept from the target's, so a refusal passed on as an immediate close would look like a server
     * that accepted and hung up — ZooKeeper's follower then goes back to a leader election (and its notification
     * back-off) where on a real network it would see the refusal and dial again a second later. A target that
     * starts listening within the wait (a new leader opening its port) is reached, as the dialler's retry would.
     */
    private void connect(Socket in) {
        Socket out = null;
        try {
            awaitOpen();
            long deadline = System.nanoTime() + TARGET_WAIT_MS * 1_000_000L;
            while (true) {
                out = new Socket();
                out.setTcpNoDelay(true);
                sockets.add(out);
                try {
                    out.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), targetPort),
                            CONNECT_TIMEOUT_MS);
                    break;
                } catch (IOException notListening) {
                    closeQuietly(out);
                    if (closed || in.isClosed() || System.nanoTime() > deadline) {
                        reset(in);
                        return;
                    }
                    Thread.sleep(RETRY_MS);
                    awaitOpen();
                }
            }
            Socket target = out;
            daemon("proxy-" + from + "-" + to + "-up", () -> pump(in, target));
            daemon("proxy-" + from + "-" + to + "-down", () -> pump(target, in));
        } catch (IOException | InterruptedException e) {
            closeQuietly(in);
            if (out != null) {
                closeQuietly(out);
            }
        }
    }

    /** Closes with a reset (SO_LINGER 0), the nearest a proxy that already accepted comes to a refusal. */
    private void reset(Socket s) {
        try {
            s.setSoLinger(true, 0);
        } catch (IOException ignored) {
            // closed already
        }
        closeQuietly(s);
    }

    /** Copies {@code src} to {@code dst} chunk by chunk, each chunk held while the link is cut; passes on EOF. */
    private void pump(Socket src, Socket dst) {
        byte[] buf = new byte[64 * 1024];
        try {
            InputStream in = src.getInputStream();
            OutputStream out = dst.getOutputStream();
            int n;
            while ((n = in.read(buf)) >= 0) {
                awaitOpen();
                out.write(buf, 0, n);
                out.flush();
            }
            awaitOpen();
            dst.shutdownOutput();
            if (src.isOutputShutdown() || dst.isInputShutdown()) {
                closeQuietly(src);
                closeQuietly(dst);
            }
        } catch (IOException | InterruptedException e) {
            try {
                awaitOpen();
            } catch (InterruptedException ignored) {
                Thread.currentThread().interrupt();
            }
            closeQuietly(src);
            closeQuietly(dst);
        }
    }

    /** Closes the listener and every connection through it. */
    @Override
    public void close() {
        closed = true;
        synchronized (gate) {
            gate.notifyAll();
        }
        closeQuietly(listener);
        for (Socket s : sockets) {
            closeQuietly(s);
        }
    }

    private void closeQuietly(AutoCloseable c) {
        try {
            c.close();
        } catch (Exception ignored) {
            // already gone
        }
        if (c instanceof Socket s) {
            sockets.remove(s);
        }
    }

    private static void pauseBriefly() {
        try {
            Thread.sleep(10);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void daemon(String name, Runnable r) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        t.start();
    }
}
