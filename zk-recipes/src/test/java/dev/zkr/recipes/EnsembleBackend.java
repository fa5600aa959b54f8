package dev.zkr.recipes;

/**
 * A backend of several replicated servers, with the faults a minority of them can suffer. At most one fault is in
 * force at a time: each starts by {@link #recover() ending} the one before, so a quorum always survives.
 */
public interface EnsembleBackend extends RecipeBackend {

    /** Kills the leader abruptly (it stays down until {@link #recover()}); returns its index. */
    int killLeader();

    /** Kills a follower abruptly, the {@code which}-th (modulo the followers); returns its index. */
    int killFollower(int which);

    /** Cuts the leader off from its peers (clients keep their connections) until {@link #recover()}. */
    int isolateLeader();

    /** Cuts a follower, the {@code which}-th (modulo the followers), off from its peers until {@link #recover()}. */
    int isolateFollower(int which);

    /**
     * Ends the fault in force, if any: restarts a killed server on its data, heals a partition; returns once every
     * server follows one leader again (so the next fault leaves a quorum that is in step).
     */
    void recover();
}
