package dev.zkr.server.round;

/**
 * Where the pipeline sends peer messages (inside a round; never blocks): the {@code PeerTransport} in a server, the
 * simulated network in the simulator. A message to a peer that is down is dropped (the protocol recovers).
 */
public interface PeerLink {

    /** A link for a server without peers (standalone). */
    PeerLink NONE = (to, message) -> {
        throw new IllegalStateException("a standalone server has no peers (message for " + to + ": " + message + ")");
    };

    void send(int to, Object message);

    /**
     * The membership changed (docs/membership.md): the members to keep links with are {@code peers} (peer addresses
     * by id, this server's own entry possibly among them). A link without peers ignores it.
     */
    default void members(java.util.Map<Integer, java.net.InetSocketAddress> peers) {
    }

    /** The round ended: what was sent in it may leave now (a link may hold messages until then). */
    default void flush() {
    }
}
