package dev.zkr.server.replication;

import dev.zkr.server.round.PeerLink;
import dev.zkr.server.peer.PeerTransport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;

/**
 * The {@link PeerLink} of a server: collects a round's messages per peer and hands each peer's to the
 * {@link PeerTransport} in one piece when the round ends (one event-loop task and one flush per peer and round, as
 * {@code Outbox} does for clients). Round state (docs/architecture.md, Threads). A message that cannot be sent is dropped with one WARN line:
 * the protocol recovers from lost messages.
 */
public final class PeerOutbox implements PeerLink {

    private static final Logger log = LoggerFactory.getLogger(PeerOutbox.class);

    private PeerTransport transport;
    @SuppressWarnings("unchecked")
    private final List<Object>[] queued = new List[256];
    private final List<Integer> dirty = new ArrayList<>();

    /** The transport, known once it is built (it needs the core, which needs this link). */
    public void connect(PeerTransport transport) {
        this.transport = transport;
    }

    @Override
    public void send(int to, Object message) {
        if (to < 0 || to >= queued.length) {
            log.warn("not sending {} to server {}: no such member", message.getClass().getSimpleName(), to);
            return;
        }
        List<Object> q = queued[to];
        if (q == null) {
            q = new ArrayList<>();
            queued[to] = q;
        }
        if (q.isEmpty()) {
            dirty.add(to);
        }
        q.add(message);
    }

    @Override
    public void members(java.util.Map<Integer, java.net.InetSocketAddress> peers) {
        if (transport != null) {
            transport.setMembers(peers);
        }
    }

    @Override
    public void flush() {
        if (dirty.isEmpty()) {
            return;
        }
        for (int to : dirty) {
            List<Object> q = queued[to];
            queued[to] = new ArrayList<>(Math.max(4, q.size()));
            try {
                transport.sendAll(to, q);
            } catch (RuntimeException e) {
                log.warn("cannot send {} message(s) to server {}: {}", q.size(), to, e.toString());
            }
        }
        dirty.clear();
    }
}
