package dev.zkr.consensus;

/** The role-specific half of a {@link Replica}: one small class per role behind one {@code step}. */
abstract class RoleState {
    final Replica r;

    RoleState(Replica r) {
        this.r = r;
    }

    abstract Role role();

    abstract int leaderId();

    boolean inService() {
        return false;
    }

    abstract boolean hasLiveLeader();

    /** A message of the replica's accepted epoch (lower ones are dropped, higher ones adopted before). */
    abstract void step(int from, ReplicaMessage m);

    abstract void tick();

    void durabilityAdvanced() {}

    /** The snapshot being installed was given up ({@link Replica#installAborted}). */
    void installAborted() {}

    void peerDown(int peer) {}

    void peerUp(int peer) {}

    /** The current membership changed (a membership record appended, truncated away or installed). */
    void membershipChanged() {}

    /** Called when the replica moves to another role. */
    void leave() {}
}
