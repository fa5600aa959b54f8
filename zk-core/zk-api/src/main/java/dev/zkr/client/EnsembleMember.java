package dev.zkr.client;

import java.util.Locale;
import java.util.Objects;

/**
 * One member of a zkr ensemble (docs/membership.md): its server id (never reused), its role, and where it listens
 * (its host, its peer port, its client port; a port 0 when unknown).
 */
public record EnsembleMember(int id, Role role, String host, int peerPort, int clientPort) {

    /**
     * What a member does: a voter's majority commits and elects; a learner receives the log and is made a voter by
     * the leader once it caught up; an observer receives the log and serves clients, never votes and is promoted only
     * when asked.
     */
    public enum Role {
        VOTER, LEARNER, OBSERVER
    }

    public EnsembleMember {
        Objects.requireNonNull(role, "role");
        Objects.requireNonNull(host, "host");
        if (id < 0 || peerPort < 0 || peerPort > 65535 || clientPort < 0 || clientPort > 65535) {
            throw new IllegalArgumentException("bad member " + id + "=" + host + ":" + peerPort + ":" + clientPort);
        }
    }

    /** This member in another role. */
    public EnsembleMember withRole(Role r) {
        return new EnsembleMember(id, r, host, peerPort, clientPort);
    }

    /** {@code id=host:peerPort:clientPort (role)}, as {@code zkr members} prints it. */
    @Override
    public String toString() {
        return id + "=" + host + ":" + peerPort + ":" + clientPort + " (" + role.name().toLowerCase(Locale.ROOT) + ")";
    }
}
