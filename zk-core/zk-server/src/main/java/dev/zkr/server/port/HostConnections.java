package dev.zkr.server.port;

import dev.zkr.server.ServerConfig;
import java.net.InetAddress;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Open connections per client IP address against {@link ServerConfig#maxConnectionsPerHost()} (ZooKeeper's
 * {@code maxClientCnxns}), so that one host cannot take every connection. Called from the accept and event loops.
 */
final class HostConnections {

    private final int max;
    private final ConcurrentHashMap<InetAddress, Integer> open = new ConcurrentHashMap<>();

    HostConnections(int max) {
        this.max = max;
    }

    /** Counts a new connection from the host; returns its number of open connections, or -1 (not counted) if full. */
    int tryOpen(InetAddress host) {
        int[] result = {-1};
        open.compute(host, (h, n) -> {
            int current = n == null ? 0 : n;
            if (current >= max) {
                return n;
            }
            result[0] = current + 1;
            return current + 1;
        });
        return result[0];
    }

    /** A connection counted by {@link #tryOpen} closed. */
    void closed(InetAddress host) {
        open.computeIfPresent(host, (h, n) -> n <= 1 ? null : n - 1);
    }

    /** Open connections from the host. */
    int open(InetAddress host) {
        return open.getOrDefault(host, 0);
    }
}
