package dev.zkr.testkit;

import java.io.IOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Listening ports for the test servers, free on loopback now, for a server to bind a moment later (and again on a
 * restart). They are drawn below the kernel's ephemeral range (Linux: 32768-60999), so that the local port of an
 * outgoing connection (a client's, a peer link's, in this JVM or in another test JVM on the machine: the kernel
 * picks those from the ephemeral range, as it does for port 0) cannot take a server's port between the probe and
 * the bind, or while the server is down for a restart. They are handed out in turn from a per-process start, so two
 * test JVMs rarely probe the same port; a bind that still loses a race fails with a {@link BindException}, which
 * {@link #bindFailure} recognises so the caller can try other ports. As zk-bench's {@code ServerProcess.freePort}.
 */
final class LoopbackPorts {

    static final int LOW_PORT = 20_000;
    static final int HIGH_PORT = 32_000;
    private static final AtomicInteger NEXT = new AtomicInteger(
            LOW_PORT + (int) (ProcessHandle.current().pid() * 7919 % (HIGH_PORT - LOW_PORT)));

    private LoopbackPorts() {
    }

    /** {@code n} distinct ports, each free now (probed by binding it, all released together). */
    static int[] take(int n) {
        List<ServerSocket> probes = new ArrayList<>();
        try {
            int[] ports = new int[n];
            for (int k = 0; k < n; k++) {
                ServerSocket probe = probe();
                probes.add(probe);
                ports[k] = probe.getLocalPort();
            }
            return ports;
        } finally {
            for (ServerSocket s : probes) {
                try {
                    s.close();
                } catch (IOException ignored) {
                    // released either way
                }
            }
        }
    }

    private static ServerSocket probe() {
        for (int i = 0; i < HIGH_PORT - LOW_PORT; i++) {
            int port = LOW_PORT + Math.floorMod(NEXT.getAndIncrement() - LOW_PORT, HIGH_PORT - LOW_PORT);
            ServerSocket s = null;
            try {
                s = new ServerSocket();
                s.setReuseAddress(true);
                s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1);
                return s;
            } catch (IOException inUse) {
                if (s != null) {
                    try {
                        s.close();
                    } catch (IOException ignored) {
                        // not bound
                    }
                }
            }
        }
        throw new IllegalStateException("no free loopback port in " + LOW_PORT + "-" + HIGH_PORT);
    }

    /** True if {@code e} (or a cause) is a failure to bind a port someone else took. */
    static boolean bindFailure(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof BindException) {
                return true;
            }
        }
        return false;
    }
}
