package dev.zkr.server.peer;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Map;
import java.util.TreeMap;

/**
 * Settings of a {@link PeerTransport}: this server's id, the static member list (id → peer address, this server
 * included: it binds its own entry's host and port only), the ensemble id every {@link Hello} must carry, the
 * inbound frame limit, the outbound bytes a link may hold unsent before it is closed, the handshake timeout and the
 * reconnect backoff.
 */
public record PeerConfig(int serverId, Map<Integer, InetSocketAddress> members, long ensembleId, int maxFrameSize,
                         long maxOutboundBytes, int handshakeTimeoutMs, int minBackoffMs, int maxBackoffMs) {

    public static final int DEFAULT_MAX_FRAME_SIZE = 1024 * 1024 + 256 * 1024;
    public static final long DEFAULT_MAX_OUTBOUND_BYTES = 64L * 1024 * 1024;

    public PeerConfig {
        members = Map.copyOf(members);
        if (!members.containsKey(serverId)) {
            throw new IllegalArgumentException("server id " + serverId + " is not in the member list " + members);
        }
        if (maxFrameSize <= 0 || maxOutboundBytes <= 0 || handshakeTimeoutMs <= 0 || minBackoffMs <= 0
                || maxBackoffMs < minBackoffMs) {
            throw new IllegalArgumentException("limits must be positive and minBackoffMs <= maxBackoffMs");
        }
    }

    /** Defaults, with the ensemble id derived from the member list ({@link #ensembleIdOf}). */
    public static PeerConfig of(int serverId, Map<Integer, InetSocketAddress> members) {
        Map<Integer, String> lines = new TreeMap<>();
        members.forEach((id, a) -> lines.put(id, a.getHostString() + ":" + a.getPort()));
        return new PeerConfig(serverId, members, ensembleIdOf(lines), DEFAULT_MAX_FRAME_SIZE,
                DEFAULT_MAX_OUTBOUND_BYTES, 5_000, 20, 1_000);
    }

    /**
     * The ensemble id of server {@code serverId} running standalone (the digest of its one member line
     * {@code "standalone"}): what a standalone server's consensus.meta carries, and what a member of an ensemble
     * accepts in its own data directory (a standalone directory becomes an ensemble member's).
     */
    public static long standaloneEnsembleId(int serverId) {
        return ensembleIdOf(Map.of(serverId, "standalone"));
    }

    /** The first 8 bytes of SHA-256 over "id=line\n" in id order (a server passes its full member lines). */
    public static long ensembleIdOf(Map<Integer, String> memberLines) {
        StringBuilder s = new StringBuilder();
        new TreeMap<>(memberLines).forEach((id, line) -> s.append(id).append('=').append(line).append('\n'));
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(s.toString().getBytes(StandardCharsets.UTF_8));
            return ByteBuffer.wrap(digest).getLong();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    public PeerConfig withEnsembleId(long id) {
        return new PeerConfig(serverId, members, id, maxFrameSize, maxOutboundBytes, handshakeTimeoutMs,
                minBackoffMs, maxBackoffMs);
    }

    public PeerConfig withMaxFrameSize(int bytes) {
        return new PeerConfig(serverId, members, ensembleId, bytes, maxOutboundBytes, handshakeTimeoutMs,
                minBackoffMs, maxBackoffMs);
    }

    public PeerConfig withMaxOutboundBytes(long bytes) {
        return new PeerConfig(serverId, members, ensembleId, maxFrameSize, bytes, handshakeTimeoutMs, minBackoffMs,
                maxBackoffMs);
    }

    /** The {@link Hello} this server sends. */
    Hello hello() {
        return new Hello(PeerTransport.PROTOCOL_VERSION, ensembleId, serverId);
    }

    /**
     * Why a peer's {@link Hello} is refused, or null if it is acceptable ({@code expected} = -1: any other member of
     * {@code memberIds}, the membership in force, which membership changes make differ from {@link #members}).
     */
    String refusal(Hello h, int expected, java.util.Set<Integer> memberIds) {
        if (h.version() != PeerTransport.PROTOCOL_VERSION) {
            return "protocol version " + h.version() + ", this server speaks " + PeerTransport.PROTOCOL_VERSION;
        }
        if (h.ensembleId() != ensembleId) {
            return "ensemble id " + Long.toHexString(h.ensembleId()) + ", this server's is "
                    + Long.toHexString(ensembleId) + " (the member lists differ)";
        }
        if (h.serverId() == serverId || !memberIds.contains(h.serverId())) {
            return "server id " + h.serverId() + " is not another member of " + new java.util.TreeSet<>(memberIds);
        }
        if (expected >= 0 && h.serverId() != expected) {
            return "server id " + h.serverId() + " answers at the address of server " + expected;
        }
        return null;
    }
}
