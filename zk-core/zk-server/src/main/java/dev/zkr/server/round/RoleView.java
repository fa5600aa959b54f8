package dev.zkr.server.round;

import dev.zkr.consensus.Role;
import dev.zkr.consensus.RoleInfo;
import dev.zkr.tree.DataTree;

/**
 * What this server is and may do, as the pipeline sees it: the role it acts in (the {@link Pipeline} takes the
 * replication's new role once per round, when it handles the change) and what that role lets it do now — sequence writes
 * ({@link #leaderReady}) or forward them to a leader ({@link #following}).
 *
 * <p>Round state: touched only inside a round, under {@link Core}'s round lock, by whichever thread runs it
 * (docs/architecture.md, Threads); in the simulator, by its one thread.
 */
final class RoleView {

    private final Replication replication;
    private final PrepStage prep;
    private final DataTree tree;
    private RoleInfo role;

    RoleView(Replication replication, PrepStage prep, DataTree tree) {
        this.replication = replication;
        this.prep = prep;
        this.tree = tree;
        this.role = replication.role();
    }

    /** The role the pipeline acts in (the replication's as of the last role change the pipeline handled). */
    RoleInfo get() {
        return role;
    }

    void set(RoleInfo now) {
        role = now;
    }

    /** The leader this server knows of (its own id when it leads), or a value below 1 if none. */
    int leaderId() {
        return role.leaderId();
    }

    long epoch() {
        return role.epoch();
    }

    /** An in-service leader whose tree applied its EPOCH record: it may sequence writes. */
    boolean leaderReady() {
        return replication.inService() && prep.epoch() == role.epoch() && tree.lastZxid() >= replication.serviceStart()
                && role.role() == Role.LEADER;
    }

    /** A follower that knows its leader and is a member (not removed, not still joining): it forwards. */
    boolean following() {
        return role.role() == Role.FOLLOWER && role.leaderId() > 0 && replication.member();
    }
}
