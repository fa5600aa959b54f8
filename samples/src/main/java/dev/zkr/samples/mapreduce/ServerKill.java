package dev.zkr.samples.mapreduce;

import java.util.Locale;
import java.util.Objects;

/**
 * What {@code --kill-server} kills: the ensemble's current leader or one of its followers, once half of the given
 * phase's tasks are done (as {@code --kill-master}). Only the embedded ensemble's servers can be killed.
 *
 * @param role  which server: the leader, or a follower (the lowest-numbered one)
 * @param phase the phase in the middle of which it dies
 */
public record ServerKill(Role role, Phase phase) {

    /** The role of the server to kill, as it is when the kill fires. */
    public enum Role {
        LEADER, FOLLOWER;

        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }

        public static Role parse(String s) {
            try {
                return valueOf(s.toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("unknown server role '" + s + "' (leader, follower)");
            }
        }
    }

    public ServerKill {
        Objects.requireNonNull(role, "role");
        Objects.requireNonNull(phase, "phase");
        if (!phase.hasTasks()) {
            throw new IllegalArgumentException("--kill-server takes a phase of map, shuffle or reduce");
        }
    }

    /** The server's role in the middle of the map phase. */
    public static ServerKill of(Role role) {
        return new ServerKill(role, Phase.MAP);
    }
}
