package dev.zkr.server.admin;

import dev.zkr.consensus.Role;

import java.util.List;
import java.util.Locale;

/**
 * A server's state at one moment, as the admin endpoint shows it ({@code /status}, the gauges of {@code /metrics}).
 * Counts of -1: not known (the pipeline did not answer in time).
 *
 * @param role       leader, follower or candidate (shown in lower case: {@link #roleName()})
 * @param leaderId   the leader this server knows of (its own id when it leads), -1 if none
 * @param dataBytes  approximate bytes of node data and paths
 * @param followers  on a leader of an ensemble: each follower's acked zxid and lag; empty elsewhere
 */
record ServerState(String version, int serverId, boolean ensemble, Role role, int leaderId, long epoch, long zxid,
                   boolean serving, int znodes, long dataBytes, int sessions, int watches, int ephemerals,
                   int connections, long outstanding, List<Follower> followers,
                   List<dev.zkr.client.EnsembleMember> members, long ensembleId) {

    /** The role as the admin endpoint shows it: {@code leader}, {@code follower} or {@code candidate}. */
    String roleName() {
        return role.name().toLowerCase(Locale.ROOT);
    }

    /** Member {@code id}'s membership role ({@code voter}, {@code learner}, {@code observer}), or null. */
    String membershipOf(int id) {
        for (dev.zkr.client.EnsembleMember m : members) {
            if (m.id() == id) {
                return m.role().name().toLowerCase(Locale.ROOT);
            }
        }
        return null;
    }

    /** A follower as its leader sees it: the last zxid it acknowledged, and how many txns it is behind. */
    record Follower(int id, long ackedZxid, long lagTxns) {
    }
}
