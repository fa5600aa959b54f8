package dev.zkr.client.netty;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;

/** The servers of a connect string ({@code host:port,host:port}), shuffled once, handed out round-robin. */
final class HostList {

    private final List<InetSocketAddress> hosts;
    private int next;

    HostList(String connectString, Random random) {
        List<InetSocketAddress> parsed = new ArrayList<>();
        for (String part : connectString.split(",")) {
            String entry = part.trim();
            if (entry.isEmpty()) {
                continue;
            }
            int colon = entry.lastIndexOf(':');
            if (colon <= 0 || colon == entry.length() - 1) {
                throw new IllegalArgumentException("expected host:port in connect string, got '" + entry + "'");
            }
            String host = entry.substring(0, colon);
            if (host.startsWith("[") && host.endsWith("]")) {
                host = host.substring(1, host.length() - 1);
            }
            int port;
            try {
                port = Integer.parseInt(entry.substring(colon + 1));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("bad port in connect string entry '" + entry + "'");
            }
            if (port <= 0 || port > 65535) {
                throw new IllegalArgumentException("bad port in connect string entry '" + entry + "'");
            }
            parsed.add(InetSocketAddress.createUnresolved(host, port));
        }
        if (parsed.isEmpty()) {
            throw new IllegalArgumentException("connect string has no servers: '" + connectString + "'");
        }
        Collections.shuffle(parsed, random);
        this.hosts = List.copyOf(parsed);
    }

    int size() {
        return hosts.size();
    }

    /** The next server to try (resolved now, so DNS changes are seen). */
    InetSocketAddress next() {
        InetSocketAddress h = hosts.get(next);
        next = (next + 1) % hosts.size();
        return new InetSocketAddress(h.getHostString(), h.getPort());
    }

    @Override
    public String toString() {
        return hosts.toString();
    }
}
