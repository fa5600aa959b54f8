package dev.zkr.chaos.net;

import java.util.ArrayList;
import java.util.List;

/**
 * The workers' connections to the servers, each worker's link to each server through its own {@link LinkProxy}, so
 * that one worker can be cut off from the whole ensemble while the others and the servers go on (a client-side
 * fault: the client host's network). Only runs with a client nemesis route workers through it; the servers, the
 * setup client and the final reads always connect directly.
 */
public final class ClientNetwork implements AutoCloseable {

    private final LinkProxy[][] links;

    private ClientNetwork(LinkProxy[][] links) {
        this.links = links;
    }

    /** Proxies from each of {@code workers} workers to each of the servers' client ports. */
    public static ClientNetwork build(int workers, List<Integer> clientPorts) {
        LinkProxy[][] links = new LinkProxy[workers][clientPorts.size()];
        try {
            for (int w = 0; w < workers; w++) {
                for (int k = 0; k < clientPorts.size(); k++) {
                    links[w][k] = LinkProxy.start(w, k, clientPorts.get(k));
                }
            }
        } catch (RuntimeException e) {
            new ClientNetwork(links).close();
            throw e;
        }
        return new ClientNetwork(links);
    }

    public int workers() {
        return links.length;
    }

    /** Worker {@code w}'s connect string: every server through its proxies, starting with server {@code w mod n}. */
    public String connectString(int w) {
        int n = links[w].length;
        List<String> hosts = new ArrayList<>();
        for (int k = 0; k < n; k++) {
            hosts.add("127.0.0.1:" + links[w][(w + k) % n].port());
        }
        return String.join(",", hosts);
    }

    /** Cuts worker {@code w} off from every server (bytes held both ways, new connections never reach a server). */
    public void cut(int w) {
        for (LinkProxy p : links[w]) {
            p.cut();
        }
    }

    /** Heals every worker's links. */
    public void heal() {
        for (LinkProxy[] row : links) {
            for (LinkProxy p : row) {
                p.heal();
            }
        }
    }

    @Override
    public void close() {
        for (LinkProxy[] row : links) {
            for (LinkProxy p : row) {
                if (p != null) {
                    p.close();
                }
            }
        }
    }
}
