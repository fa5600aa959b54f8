package dev.zkr.server.peer;

/**
 * First frame on a peer connection, both ways: the dialer introduces itself, the acceptor answers with its own.
 * A connection whose {@code Hello} has another protocol version or ensemble id, or an unknown (or, for the dialer,
 * unexpected) server id, is closed with one ERROR line.
 */
public record Hello(int version, long ensembleId, int serverId) {
}
