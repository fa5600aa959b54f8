package dev.zkr.client;

import java.util.Objects;

/**
 * One change of a zkr ensemble's membership, as an operator asks for it (docs/membership.md, {@link
 * ZkClient#reconfig}): add a server (it joins as a learner and the leader promotes it to voter once it caught up), add
 * an observer, promote an observer to voter, or remove a member (any role, the leader included). {@code member}
 * carries the new server's id and addresses for the two adds, only the id otherwise.
 */
public record MembershipChange(Kind kind, EnsembleMember member) {

    /** What the change does. */
    public enum Kind {
        ADD, ADD_OBSERVER, PROMOTE, REMOVE
    }

    public MembershipChange {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(member, "member");
    }

    /** Adds server {@code id} at {@code host}: a learner now, a voter once it caught up. */
    public static MembershipChange add(int id, String host, int peerPort, int clientPort) {
        return new MembershipChange(Kind.ADD, new EnsembleMember(id, EnsembleMember.Role.LEARNER, host, peerPort,
                clientPort));
    }

    /** Adds server {@code id} at {@code host} as an observer. */
    public static MembershipChange addObserver(int id, String host, int peerPort, int clientPort) {
        return new MembershipChange(Kind.ADD_OBSERVER, new EnsembleMember(id, EnsembleMember.Role.OBSERVER, host,
                peerPort, clientPort));
    }

    /** Makes observer {@code id} a voter (once it caught up; a learner is promoted without asking). */
    public static MembershipChange promote(int id) {
        return new MembershipChange(Kind.PROMOTE, new EnsembleMember(id, EnsembleMember.Role.VOTER, "", 0, 0));
    }

    /** Removes member {@code id}. */
    public static MembershipChange remove(int id) {
        return new MembershipChange(Kind.REMOVE, new EnsembleMember(id, EnsembleMember.Role.VOTER, "", 0, 0));
    }

    /** The server id the change is about. */
    public int id() {
        return member.id();
    }
}
