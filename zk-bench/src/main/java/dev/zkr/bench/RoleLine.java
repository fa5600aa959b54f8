package dev.zkr.bench;

import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What one line of a server's output says about its role in an ensemble (pure parsing, no I/O).
 *
 * <ul>
 *   <li>ZooKeeper 3.9 ({@code QuorumPeer}, INFO): {@code Peer state changed: looking}, {@code ... following},
 *       {@code ... leading}, and {@code ... following - broadcast} / {@code ... leading - broadcast} once the
 *       server has synced with its leader (or a quorum with it) and serves clients. The intermediate
 *       {@code - discovery} and {@code - synchronization} lines are ignored.</li>
 *   <li>zkr ({@code dev.zkr.server.ZkServer}, INFO), on every role change:
 *       {@code role: server <id> is <LEADER|FOLLOWER|CANDIDATE> (leader <id or -1>, epoch <e>)}; a FOLLOWER
 *       of leader -1 (it lost its leader and waits for the next) counts as LOOKING.</li>
 * </ul>
 *
 * @param kind     the state the line reports
 * @param serverId the server's own id (zkr lines only; -1 when the line does not say)
 * @param leaderId the leader the server follows or is (zkr lines only; -1 when unknown or not said)
 * @param epoch    the epoch (zkr lines only; -1 when not said)
 */
record RoleLine(Kind kind, int serverId, int leaderId, long epoch) {

    /** The role states both systems report, in ZooKeeper's words. */
    enum Kind {
        /** ZooKeeper LOOKING, zkr CANDIDATE or FOLLOWER of leader -1: no leader, electing. */
        LOOKING,
        /** Following a leader (ZooKeeper: elected, not yet synced). */
        FOLLOWING,
        /** Leading (ZooKeeper: elected, not yet synced with a quorum). */
        LEADING,
        /** ZooKeeper only: {@code following - broadcast}, synced and serving. */
        FOLLOWING_SYNCED,
        /** ZooKeeper only: {@code leading - broadcast}, a quorum synced, writes accepted. */
        LEADING_SYNCED;

        boolean leads() {
            return this == LEADING || this == LEADING_SYNCED;
        }

        boolean follows() {
            return this == FOLLOWING || this == FOLLOWING_SYNCED;
        }
    }

    private static final Pattern ZOOKEEPER = Pattern.compile(
            "Peer state changed: (looking|following|leading)( - broadcast)?\\s*$");
    private static final Pattern ZKR = Pattern.compile(
            "role: server (\\d+) is (LEADER|FOLLOWER|CANDIDATE) \\(leader (-?\\d+), epoch (-?\\d+)\\)");

    /** A ZooKeeper {@code QuorumPeer} state line, or empty. */
    static Optional<RoleLine> parseZooKeeper(String line) {
        Matcher m = ZOOKEEPER.matcher(line);
        if (!m.find()) {
            return Optional.empty();
        }
        boolean broadcast = m.group(2) != null;
        Kind kind = switch (m.group(1).toLowerCase(Locale.ROOT)) {
            case "looking" -> Kind.LOOKING;
            case "following" -> broadcast ? Kind.FOLLOWING_SYNCED : Kind.FOLLOWING;
            default -> broadcast ? Kind.LEADING_SYNCED : Kind.LEADING;
        };
        if (kind == Kind.LOOKING && broadcast) {
            return Optional.empty();
        }
        return Optional.of(new RoleLine(kind, -1, -1, -1));
    }

    /** A zkr role line, or empty. */
    static Optional<RoleLine> parseZkr(String line) {
        Matcher m = ZKR.matcher(line);
        if (!m.find()) {
            return Optional.empty();
        }
        int leader = Integer.parseInt(m.group(3));
        Kind kind = switch (m.group(2)) {
            case "LEADER" -> Kind.LEADING;
            case "FOLLOWER" -> leader > 0 ? Kind.FOLLOWING : Kind.LOOKING; // a follower without a leader waits for one
            default -> Kind.LOOKING;
        };
        return Optional.of(new RoleLine(kind, Integer.parseInt(m.group(1)), leader, Long.parseLong(m.group(4))));
    }
}
